import WPText
import WPPOSIX
import WPRuntime
#if canImport(Glibc)
public import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The process facts the logging factory depends on, injectable so tests are hermetic.
///
/// The defaults are the real ones: the system wall clock, `isatty(3)`, and a line on standard
/// error for sink failures. Tests replace them, e.g. to pretend standard output is a terminal
/// and check the colour codes, or to move the wall clock to test age-based deletion.
public struct LoggingEnvironment: Sendable {
    /// The wall clock: record timestamps, rotated file names, backup ages.
    public var now: @Sendable () -> LogTimestamp
    /// Whether a descriptor is a terminal (colours are used only then).
    public var isTerminal: @Sendable (Int32) -> Bool
    /// Receives the first failure of each kind from each sink.
    public var reportFailure: @Sendable (String) -> Void

    /// Creates an environment; every fact left out is the real one.
    ///
    /// - Parameters:
    ///   - now: The wall clock; the system clock (``LogTimestamp/now()``) by default.
    ///   - isTerminal: Terminal detection; `isatty(3)` by default.
    ///   - reportFailure: Where sink failures go; standard error by default.
    public init(now: @escaping @Sendable () -> LogTimestamp = { LogTimestamp.now() },
                isTerminal: @escaping @Sendable (Int32) -> Bool = { isatty($0) == 1 },
                reportFailure: @escaping @Sendable (String) -> Void = LoggingEnvironment.writeToStandardError) {
        self.now = now
        self.isTerminal = isTerminal
        self.reportFailure = reportFailure
    }

    /// Writes `message` and a newline to standard error with one `write(2)`; failures ignored.
    public static func writeToStandardError(_ message: String) {
        var line: [UInt8] = []
        TextEscaping.append(message, quoting: .bare, to: &line)
        line.append(UInt8(ascii: "\n"))
        _ = POSIXFile.writeAll(2, line)
    }
}
