/// The value of one structured log field.
///
/// Literals convert implicitly, so call sites read naturally:
/// `logger.info("collected", ["devices": 3, "duration_ms": 12.5, "url": "\(url)"])`.
public enum LogValue: Sendable, Equatable, CustomStringConvertible {
    /// Text; JSON string, console value quoted when needed.
    case string(String)
    /// An integer; JSON number.
    case int(Int)
    /// A floating-point number; JSON number, or `"NaN"`/`"+Inf"`/`"-Inf"` when not finite.
    case double(Double)
    /// `true` or `false`.
    case bool(Bool)

    /// The value as plain text (no quoting or escaping).
    public var description: String {
        switch self {
        case .string(let value): value
        case .int(let value): String(value)
        case .double(let value): String(value)
        case .bool(let value): String(value)
        }
    }
}

extension LogValue {
    /// `duration` in seconds, rounded to the millisecond: `3599.999873 s` is logged as `3600.0`.
    /// Use it for fields named `…_s`.
    public static func seconds(_ duration: Duration) -> LogValue {
        .double(rounded(duration, perSecond: 1_000) / 1_000)
    }

    /// `duration` in milliseconds, rounded to the microsecond (`12.345`). Use it for fields
    /// named `…_ms`.
    public static func milliseconds(_ duration: Duration) -> LogValue {
        .double(rounded(duration, perSecond: 1_000_000) / 1_000)
    }

    /// `duration` as a whole number of `1/perSecond` units, rounded half away from zero.
    private static func rounded(_ duration: Duration, perSecond: Int64) -> Double {
        let (seconds, attoseconds) = duration.components
        let unit = 1_000_000_000_000_000_000 / perSecond
        let fraction = (Double(attoseconds) / Double(unit)).rounded()
        return Double(seconds) * Double(perSecond) + fraction
    }
}

extension LogValue: ExpressibleByStringLiteral, ExpressibleByStringInterpolation {
    /// A ``string(_:)`` value from a string literal.
    public init(stringLiteral value: String) { self = .string(value) }
}

extension LogValue: ExpressibleByIntegerLiteral {
    /// An ``int(_:)`` value from an integer literal.
    public init(integerLiteral value: Int) { self = .int(value) }
}

extension LogValue: ExpressibleByFloatLiteral {
    /// A ``double(_:)`` value from a floating-point literal.
    public init(floatLiteral value: Double) { self = .double(value) }
}

extension LogValue: ExpressibleByBooleanLiteral {
    /// A ``bool(_:)`` value from `true` or `false`.
    public init(booleanLiteral value: Bool) { self = .bool(value) }
}

/// Structured fields attached to a log record. Encoders emit them sorted by key.
public typealias LogFields = [String: LogValue]
