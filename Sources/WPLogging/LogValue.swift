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

extension LogValue: ExpressibleByStringLiteral, ExpressibleByStringInterpolation {
    public init(stringLiteral value: String) { self = .string(value) }
}

extension LogValue: ExpressibleByIntegerLiteral {
    public init(integerLiteral value: Int) { self = .int(value) }
}

extension LogValue: ExpressibleByFloatLiteral {
    public init(floatLiteral value: Double) { self = .double(value) }
}

extension LogValue: ExpressibleByBooleanLiteral {
    public init(booleanLiteral value: Bool) { self = .bool(value) }
}

/// Structured fields attached to a log record. Encoders emit them sorted by key.
public typealias LogFields = [String: LogValue]
