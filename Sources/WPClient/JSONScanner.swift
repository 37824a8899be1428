/// A syntax error in a JSON document: what was expected and the byte offset where it was not.
struct JSONSyntaxError: Error, Equatable {
    var offset: Int
    var message: String
}

/// A forward-only JSON reader over raw bytes, for the fixed WinPower schema.
///
/// It validates syntax as it goes but builds no tree: callers walk objects key by key and
/// read each value in the type they want, or skip it. Strings are only materialised when a
/// caller asks for one; numbers inside strings are parsed straight from the bytes.
struct JSONScanner {
    enum ValueKind: Equatable { case object, array, string, number, bool, null }

    /// A key as it appears in the document (without quotes).
    struct Key {
        var range: Range<Int>
        /// Whether the raw key holds a backslash escape and must be decoded before comparing.
        var escaped: Bool
    }

    let bytes: UnsafeBufferPointer<UInt8>
    private(set) var position = 0
    /// Nesting depth, bounded so hostile input cannot exhaust the stack.
    private var depth = 0
    private let maxDepth = 64

    init(_ bytes: UnsafeBufferPointer<UInt8>) {
        self.bytes = bytes
    }

    func error(_ message: String) -> JSONSyntaxError {
        JSONSyntaxError(offset: position, message: message)
    }

    mutating func skipWhitespace() {
        while position < bytes.count {
            switch bytes[position] {
            case 0x20, 0x09, 0x0A, 0x0D: position += 1
            default: return
            }
        }
    }

    /// The kind of the next value, without consuming it.
    mutating func peekKind() throws -> ValueKind {
        skipWhitespace()
        guard position < bytes.count else { throw error("unexpected end of document") }
        switch bytes[position] {
        case UInt8(ascii: "{"): return .object
        case UInt8(ascii: "["): return .array
        case UInt8(ascii: "\""): return .string
        case UInt8(ascii: "t"), UInt8(ascii: "f"): return .bool
        case UInt8(ascii: "n"): return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return .number
        default: throw error("unexpected character '\(Self.printable(bytes[position]))'")
        }
    }

    /// Fails unless only whitespace remains.
    mutating func expectEnd() throws {
        skipWhitespace()
        if position < bytes.count { throw error("unexpected data after the document") }
    }

    private mutating func consume(_ byte: UInt8, _ what: String) throws {
        skipWhitespace()
        guard position < bytes.count, bytes[position] == byte else {
            throw position < bytes.count ? error("expected \(what)") : error("unexpected end of document, expected \(what)")
        }
        position += 1
    }

    // MARK: Containers

    /// Consumes `{`.
    mutating func beginObject() throws {
        try consume(UInt8(ascii: "{"), "'{'")
        depth += 1
        if depth > maxDepth { throw error("nesting deeper than \(maxDepth)") }
    }

    /// The next key of the current object (consuming it and its `:`), or `nil` after
    /// consuming the closing `}`. `first` must start `true` for each object.
    mutating func nextKey(first: inout Bool) throws -> Key? {
        skipWhitespace()
        if position < bytes.count, bytes[position] == UInt8(ascii: "}") {
            position += 1
            depth -= 1
            return nil
        }
        if !first { try consume(UInt8(ascii: ","), "',' or '}'") }
        first = false
        skipWhitespace()
        guard position < bytes.count, bytes[position] == UInt8(ascii: "\"") else { throw error("expected a key string") }
        let (range, escaped) = try scanString()
        try consume(UInt8(ascii: ":"), "':'")
        return Key(range: range, escaped: escaped)
    }

    /// Consumes `[`.
    mutating func beginArray() throws {
        try consume(UInt8(ascii: "["), "'['")
        depth += 1
        if depth > maxDepth { throw error("nesting deeper than \(maxDepth)") }
    }

    /// Whether another element follows (consuming the `,`), or `false` after consuming `]`.
    mutating func nextElement(first: inout Bool) throws -> Bool {
        skipWhitespace()
        if position < bytes.count, bytes[position] == UInt8(ascii: "]") {
            position += 1
            depth -= 1
            return false
        }
        if !first { try consume(UInt8(ascii: ","), "',' or ']'") }
        first = false
        return true
    }

    // MARK: Scalars

    /// Scans a string starting at its opening quote; returns the range between the quotes.
    mutating func scanString() throws -> (Range<Int>, escaped: Bool) {
        try consume(UInt8(ascii: "\""), "a string")
        let start = position
        var escaped = false
        while position < bytes.count {
            let byte = bytes[position]
            if byte == UInt8(ascii: "\"") {
                position += 1
                return (start..<position - 1, escaped)
            }
            if byte == UInt8(ascii: "\\") {
                escaped = true
                try validateEscape()
                continue
            }
            if byte < 0x20 { throw error("control character in string") }
            position += 1
        }
        throw error("unterminated string")
    }

    /// Checks the escape at `position` (a backslash) and moves past it.
    private mutating func validateEscape() throws {
        guard position + 1 < bytes.count else { throw error("unterminated string") }
        switch bytes[position + 1] {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"), UInt8(ascii: "b"), UInt8(ascii: "f"),
             UInt8(ascii: "n"), UInt8(ascii: "r"), UInt8(ascii: "t"):
            position += 2
        case UInt8(ascii: "u"):
            guard position + 6 <= bytes.count else { throw error("invalid \\u escape") }
            for k in position + 2..<position + 6 where !bytes[k].isHexDigit {
                throw JSONSyntaxError(offset: k, message: "invalid \\u escape")
            }
            position += 6
        default:
            throw error("invalid escape '\\\(Self.printable(bytes[position + 1]))'")
        }
    }

    /// Reads a string value, decoding escapes.
    mutating func readString() throws -> String {
        let (range, escaped) = try scanString()
        return escaped ? try decodeEscapes(range) : String(decoding: UnsafeBufferPointer(rebasing: bytes[range]), as: UTF8.self)
    }

    /// Scans a JSON number and returns its range.
    mutating func scanNumber() throws -> Range<Int> {
        skipWhitespace()
        let start = position
        if position < bytes.count, bytes[position] == UInt8(ascii: "-") { position += 1 }
        let digitsStart = position
        while position < bytes.count, Self.isDigit(bytes[position]) { position += 1 }
        if position == digitsStart { throw error("invalid number") }
        if position < bytes.count, bytes[position] == UInt8(ascii: ".") {
            position += 1
            let fraction = position
            while position < bytes.count, Self.isDigit(bytes[position]) { position += 1 }
            if position == fraction { throw error("invalid number") }
        }
        if position < bytes.count, bytes[position] | 0x20 == UInt8(ascii: "e") {
            position += 1
            if position < bytes.count, bytes[position] == UInt8(ascii: "+") || bytes[position] == UInt8(ascii: "-") {
                position += 1
            }
            let exponent = position
            while position < bytes.count, Self.isDigit(bytes[position]) { position += 1 }
            if position == exponent { throw error("invalid number") }
        }
        return start..<position
    }

    /// Reads `true` or `false`.
    mutating func readBool() throws -> Bool {
        skipWhitespace()
        if matchLiteral("true") { return true }
        if matchLiteral("false") { return false }
        throw error("invalid literal")
    }

    /// Reads `null`.
    mutating func readNull() throws {
        skipWhitespace()
        if !matchLiteral("null") { throw error("invalid literal") }
    }

    private mutating func matchLiteral(_ literal: StaticString) -> Bool {
        let count = literal.utf8CodeUnitCount
        guard position + count <= bytes.count else { return false }
        let base = literal.utf8Start
        for i in 0..<count where bytes[position + i] != base[i] { return false }
        position += count
        return true
    }

    /// Skips any value, validating its syntax.
    mutating func skipValue() throws {
        switch try peekKind() {
        case .object:
            try beginObject()
            var first = true
            while try nextKey(first: &first) != nil { try skipValue() }
        case .array:
            try beginArray()
            var first = true
            while try nextElement(first: &first) { try skipValue() }
        case .string: _ = try scanString()
        case .number: _ = try scanNumber()
        case .bool: _ = try readBool()
        case .null: try readNull()
        }
    }

    // MARK: Helpers

    static func isDigit(_ byte: UInt8) -> Bool { byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") }

    static func printable(_ byte: UInt8) -> String {
        byte >= 0x20 && byte < 0x7F ? String(UnicodeScalar(byte)) : "\\u{\(String(byte, radix: 16))}"
    }
}

extension UInt8 {
    var isHexDigit: Bool {
        (self >= 0x30 && self <= 0x39) || (self | 0x20 >= 0x61 && self | 0x20 <= 0x66)
    }
}
