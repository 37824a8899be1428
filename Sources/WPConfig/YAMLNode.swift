/// A position in a text file: 1-based line and column (columns count Unicode scalars).
public struct SourcePosition: Sendable, Hashable, CustomStringConvertible {
    /// The 1-based line number.
    public var line: Int
    /// The 1-based column number.
    public var column: Int

    /// Creates a position from a 1-based line and column.
    public init(line: Int, column: Int) {
        self.line = line
        self.column = column
    }

    /// `line:column`.
    public var description: String { "\(line):\(column)" }
}

/// One scalar of a YAML document, as written, with its quoting style.
///
/// The reader never converts scalars to typed values on its own: `text` is exactly what the
/// file holds (after unquoting and escapes), and ``resolved`` is the YAML 1.2 core-schema
/// reading (plus YAML 1.1 leading-zero octal) for callers that want it. Typed configuration
/// keys convert `text` themselves, so a quoted `"0123"` password stays the string `0123`.
package struct YAMLScalar: Sendable, Hashable {
    /// How the scalar was written.
    public enum Style: Sendable, Hashable {
        case plain
        case singleQuoted
        case doubleQuoted
    }

    /// A scalar read according to the core schema.
    public enum Resolved: Sendable, Equatable {
        case null
        case bool(Bool)
        case int(Int)
        case float(Double)
        case string(String)
    }

    /// The scalar's text after unquoting and escape processing.
    public var text: String
    /// Plain, single-quoted or double-quoted.
    public var style: Style

    /// Creates a scalar.
    public init(text: String, style: Style) {
        self.text = text
        self.style = style
    }

    /// Whether this is a plain `~`, `null` (any common case) or an empty value.
    public var isNull: Bool {
        style == .plain && ["", "~", "null", "Null", "NULL"].contains(text)
    }

    /// The core-schema value of this scalar; quoted scalars are always strings.
    public var resolved: Resolved {
        guard style == .plain else { return .string(text) }
        if isNull { return .null }
        switch text {
        case "true", "True", "TRUE": return .bool(true)
        case "false", "False", "FALSE": return .bool(false)
        case ".inf", ".Inf", ".INF", "+.inf", "+.Inf", "+.INF": return .float(.infinity)
        case "-.inf", "-.Inf", "-.INF": return .float(-.infinity)
        case ".nan", ".NaN", ".NAN": return .float(.nan)
        default: break
        }
        if let value = ScalarSyntax.integer(text) { return .int(value) }
        if ScalarSyntax.isFloat(text), let value = Double(text) { return .float(value) }
        return .string(text)
    }
}

/// A node of a parsed YAML document with the position where it starts.
package struct YAMLNode: Sendable, Equatable {
    /// One `key: value` pair of a mapping, in file order.
    public struct Entry: Sendable, Equatable {
        /// The key's text.
        public var key: String
        /// Where the key starts.
        public var keyPosition: SourcePosition
        /// The value (a null scalar when the key has no value).
        public var value: YAMLNode
    }

    /// The shape of a node.
    public indirect enum Kind: Sendable, Equatable {
        case scalar(YAMLScalar)
        case mapping([Entry])
        case sequence([YAMLNode])
    }

    /// The node's content.
    public var kind: Kind
    /// Where the node starts.
    public var position: SourcePosition

    /// Creates a node.
    public init(kind: Kind, position: SourcePosition) {
        self.kind = kind
        self.position = position
    }

    /// The scalar, when this node is one.
    public var scalar: YAMLScalar? {
        if case .scalar(let scalar) = kind { return scalar }
        return nil
    }

    /// The entries, when this node is a mapping.
    public var entries: [Entry]? {
        if case .mapping(let entries) = kind { return entries }
        return nil
    }

    /// The items, when this node is a sequence.
    public var items: [YAMLNode]? {
        if case .sequence(let items) = kind { return items }
        return nil
    }

    /// A short name for the node's shape, used in error messages.
    public var shapeName: String {
        switch kind {
        case .scalar: return "a scalar"
        case .mapping: return "a mapping"
        case .sequence: return "a sequence"
        }
    }
}

/// Recognisers for numeric scalar syntax, shared by the YAML reader and typed conversion.
enum ScalarSyntax {
    /// Reads decimal, `0o`/leading-zero octal and `0x` hexadecimal integers; nil otherwise.
    static func integer(_ text: String) -> Int? {
        var body = Substring(text)
        var negative = false
        if let first = body.first, first == "-" || first == "+" {
            negative = first == "-"
            body = body.dropFirst()
        }
        guard !body.isEmpty else { return nil }
        let magnitude: Int?
        if body.hasPrefix("0o") || body.hasPrefix("0O") {
            magnitude = parse(body.dropFirst(2), radix: 8)
        } else if body.hasPrefix("0x") || body.hasPrefix("0X") {
            magnitude = parse(body.dropFirst(2), radix: 16)
        } else if body.count > 1, body.hasPrefix("0") {
            magnitude = parse(body.dropFirst(), radix: 8)
        } else {
            magnitude = parse(body, radix: 10)
        }
        guard let magnitude else { return nil }
        return negative ? -magnitude : magnitude
    }

    /// Whether `text` has the core-schema float syntax (`1.5`, `-2e3`, `.5`).
    static func isFloat(_ text: String) -> Bool {
        let scalars = Array(text.unicodeScalars)
        var index = 0
        if index < scalars.count, scalars[index] == "-" || scalars[index] == "+" { index += 1 }
        var digits = 0
        while index < scalars.count, isDigit(scalars[index]) { index += 1; digits += 1 }
        var sawDot = false
        if index < scalars.count, scalars[index] == "." {
            sawDot = true
            index += 1
            while index < scalars.count, isDigit(scalars[index]) { index += 1; digits += 1 }
        }
        guard digits > 0 else { return false }
        var sawExponent = false
        if index < scalars.count, scalars[index] == "e" || scalars[index] == "E" {
            sawExponent = true
            index += 1
            if index < scalars.count, scalars[index] == "-" || scalars[index] == "+" { index += 1 }
            var exponentDigits = 0
            while index < scalars.count, isDigit(scalars[index]) { index += 1; exponentDigits += 1 }
            guard exponentDigits > 0 else { return false }
        }
        return index == scalars.count && (sawDot || sawExponent)
    }

    private static func isDigit(_ scalar: Unicode.Scalar) -> Bool { scalar >= "0" && scalar <= "9" }

    private static func parse(_ digits: Substring, radix: Int) -> Int? {
        guard !digits.isEmpty, !digits.hasPrefix("+"), !digits.hasPrefix("-") else { return nil }
        return Int(digits, radix: radix)
    }
}
