/// Severity of a log record, ordered from the most verbose to the most severe.
public enum LogLevel: Int, Sendable, Comparable, CaseIterable, CustomStringConvertible {
    /// Detail for diagnosing problems; off by default.
    case debug
    /// Normal operation: start-up, logins, periodic summaries.
    case info
    /// Something unexpected that wpexporter recovered from.
    case warn
    /// A failure that lost data or stopped an operation.
    case error

    /// Parses a configured level name: `debug`, `info`, `warn` (or `warning`), `error`.
    /// Case-insensitive; returns `nil` for anything else.
    public init?(name: String) {
        switch name.lowercased() {
        case "debug": self = .debug
        case "info": self = .info
        case "warn", "warning": self = .warn
        case "error": self = .error
        default: return nil
        }
    }

    /// The lower-case name used in configuration and JSON output.
    public var description: String {
        switch self {
        case .debug: "debug"
        case .info: "info"
        case .warn: "warn"
        case .error: "error"
        }
    }

    /// Whether `lhs` is less severe than `rhs`: debug < info < warn < error.
    public static func < (lhs: LogLevel, rhs: LogLevel) -> Bool { lhs.rawValue < rhs.rawValue }
}
