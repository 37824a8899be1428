import Foundation
import Synchronization
import WPLogging

/// A fresh, uniquely named directory under the system temporary directory for one test.
///
/// ```swift
/// try withLoggingTemporaryDirectory { dir in
///     let sink = try RotatingFileSink(configuration: .init(path: dir + "/app.log"), encoder: JSONLogEncoder())
/// }
/// ```
/// The directory and everything in it are removed when the body returns or throws.
public func withLoggingTemporaryDirectory<Result>(_ body: (String) throws -> Result) throws -> Result {
    let path = NSTemporaryDirectory() + "wplogging-" + UUID().uuidString
    try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(atPath: path) }
    return try body(path)
}

/// Async variant of ``withLoggingTemporaryDirectory(_:)``.
public func withLoggingTemporaryDirectory<Result>(_ body: (String) async throws -> Result) async throws -> Result {
    let path = NSTemporaryDirectory() + "wplogging-" + UUID().uuidString
    try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(atPath: path) }
    return try await body(path)
}

/// A settable wall clock for sinks and loggers (`now: clock.now`).
public final class LoggingWallClock: Sendable {
    private let current: Mutex<Date>

    /// - Parameter start: The initial time; 2026-11-22T02:37:19.123Z by default.
    public init(_ start: Date = Date(timeIntervalSince1970: 1_795_315_039.123)) {
        current = Mutex(start)
    }

    /// The current time.
    public var date: Date { current.withLock { $0 } }

    /// A closure reading this clock, for `now:` parameters.
    public var now: @Sendable () -> Date { { [self] in date } }

    /// Moves the clock by `seconds` (may be negative).
    public func advance(by seconds: TimeInterval) {
        current.withLock { $0 = $0.addingTimeInterval(seconds) }
    }
}

/// Collects the failure reports of sinks, for `reportFailure:` parameters.
public final class LoggingFailureRecorder: Sendable {
    private let messages = Mutex<[String]>([])

    public init() {}

    /// Every report so far, in order.
    public var reports: [String] { messages.withLock { $0 } }

    /// A closure appending to this recorder.
    public var record: @Sendable (String) -> Void { { [self] message in messages.withLock { $0.append(message) } } }
}
