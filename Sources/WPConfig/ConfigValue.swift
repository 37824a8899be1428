/// A typed configuration value.
public enum ConfigValue: Sendable, Hashable {
    /// Text: a string, a path, a URL or a secret (``formatted(as:)`` masks a secret).
    case string(String)
    /// A whole number: a count, a port, a size, or file permission bits.
    case integer(Int)
    /// `true` or `false`.
    case boolean(Bool)
    /// A time span, written as `30s`, `1m30s` or `500ms`.
    case duration(Duration)

    /// The value as configuration text: durations as `1m30s`, file modes in octal.
    ///
    /// - Parameter type: The key's type (decides octal for file modes and masking).
    /// - Returns: Text that reads back to the same value; secrets become `******`.
    public func formatted(as type: ConfigValueType) -> String {
        if type == .secret { return Secret.mask }
        switch self {
        case .string(let text): return type == .url ? URLRedaction.redact(text) : text
        case .integer(let number):
            return type == .fileMode ? "0" + String(number, radix: 8) : String(number)
        case .boolean(let flag): return flag ? "true" : "false"
        case .duration(let duration): return DurationText.format(duration)
        }
    }

    /// Reads `text` as a value of `type`.
    ///
    /// - Parameters:
    ///   - text: The text from a file, an environment variable or a flag.
    ///   - type: The key's type.
    /// - Returns: The value, or a message saying what is allowed.
    package static func parse(_ text: String, as type: ConfigValueType) -> Result<ConfigValue, ConfigValueError> {
        switch type {
        case .string, .secret, .path, .url:
            return .success(.string(text))
        case .choice(let words):
            return words.contains(text) ? .success(.string(text))
                : .failure(ConfigValueError("must be one of \(words.joined(separator: ", "))"))
        case .choiceOrPath(let words):
            return words.contains(text) || text.contains("/") ? .success(.string(text))
                : .failure(ConfigValueError("must be one of \(words.joined(separator: ", ")) or a path containing '/'"))
        case .boolean:
            switch text.lowercased() {
            case "true", "1": return .success(.boolean(true))
            case "false", "0": return .success(.boolean(false))
            default: return .failure(ConfigValueError("must be true or false"))
            }
        case .integer:
            let digits = text.hasPrefix("-") || text.hasPrefix("+") ? String(text.dropFirst()) : text
            guard !digits.isEmpty, digits.allSatisfy({ $0.isASCII && $0.isNumber }), let number = Int(text) else {
                return .failure(ConfigValueError("must be a whole number"))
            }
            if digits.count > 1, digits.hasPrefix("0") {
                return .failure(ConfigValueError("has a leading zero, which YAML may read as octal; write it without the zero"))
            }
            return .success(.integer(number))
        case .fileMode:
            var digits = Substring(text)
            if digits.hasPrefix("0o") || digits.hasPrefix("0O") {
                digits = digits.dropFirst(2)
            } else if digits.hasPrefix("0") {
                digits = digits.dropFirst()
                if digits.isEmpty { return .success(.integer(0)) }
            } else {
                return .failure(ConfigValueError("must be an octal file mode written with a leading 0, e.g. 0644"))
            }
            guard !digits.isEmpty, digits.allSatisfy({ "01234567".contains($0) }), let mode = Int(digits, radix: 8) else {
                return .failure(ConfigValueError("must be an octal file mode (digits 0-7), e.g. 0644"))
            }
            return .success(.integer(mode))
        case .duration:
            switch DurationText.parse(text) {
            case .success(let duration): return .success(.duration(duration))
            case .failure(let error): return .failure(error)
            }
        }
    }
}

/// Why a text is not a valid value for a key's type.
public struct ConfigValueError: Error, Sendable, Equatable {
    /// What is allowed, phrased to follow the key name ("must be true or false").
    public var reason: String

    /// Creates an error.
    public init(_ reason: String) { self.reason = reason }
}
