package import Foundation
import Synchronization
package import WPLogging

/// A fresh, uniquely named directory under the system temporary directory for one test.
///
/// ```swift
/// try withLoggingTemporaryDirectory { dir in
///     let sink = try RotatingFileSink(configuration: .init(path: dir + "/app.log"), encoder: JSONLogEncoder())
/// }
/// ```
/// The directory and everything in it are removed when the body returns or throws.
package func withLoggingTemporaryDirectory<Result>(_ body: (String) throws -> Result) throws -> Result {
    let path = NSTemporaryDirectory() + "wplogging-" + UUID().uuidString
    try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(atPath: path) }
    return try body(path)
}

/// Async variant of ``withLoggingTemporaryDirectory(_:)``.
package func withLoggingTemporaryDirectory<Result>(_ body: (String) async throws -> Result) async throws -> Result {
    let path = NSTemporaryDirectory() + "wplogging-" + UUID().uuidString
    try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(atPath: path) }
    return try await body(path)
}

/// A settable wall clock for sinks and loggers (`now: clock.now`).
package final class LoggingWallClock: Sendable {
    private let current: Mutex<LogTimestamp>

    /// - Parameter start: The initial time; 2026-11-22T02:37:19.123Z by default.
    package init(_ start: LogTimestamp = LogTimestamp(seconds: 1_795_315_039, nanoseconds: 123_000_000)) {
        current = Mutex(start)
    }

    /// The current time.
    package var time: LogTimestamp { current.withLock { $0 } }

    /// A closure reading this clock, for `now:` parameters.
    package var now: @Sendable () -> LogTimestamp { { [self] in time } }

    /// Moves the clock by `seconds` (may be negative).
    package func advance(by seconds: Double) {
        current.withLock { $0 = $0.advanced(bySeconds: seconds) }
    }
}

extension LogTimestamp {
    /// The same instant as `date`, to the nearest microsecond; for tests that hold a `Date`.
    ///
    /// - Parameter date: The instant to convert.
    package init(_ date: Date) {
        self.init(secondsSince1970: date.timeIntervalSince1970)
    }
}

/// Collects the failure reports of sinks, for `reportFailure:` parameters.
package final class LoggingFailureRecorder: Sendable {
    private let messages = Mutex<[String]>([])

    package init() {}

    /// Every report so far, in order.
    package var reports: [String] { messages.withLock { $0 } }

    /// A closure appending to this recorder.
    package var record: @Sendable (String) -> Void { { [self] message in messages.withLock { $0.append(message) } } }
}
