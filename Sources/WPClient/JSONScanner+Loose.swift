import WPText
import WPRuntime

/// Tolerant readers: WinPower sends numbers as strings, sometimes empty or `"N/A"`. Each reader
/// consumes one value of any kind and returns `nil` when it is not what was asked for; only a
/// syntax error throws.
extension JSONScanner {
    /// A finite number from a JSON number or a string holding one (surrounding spaces
    /// allowed); `nil` for `""`, `"N/A"`, `"--"`, garbage, `null`, booleans and containers.
    mutating func readLooseNumber() throws -> Double? {
        switch try peekKind() {
        case .number:
            return Self.parseDecimal(bytes, try scanNumber())
        case .string:
            let (range, escaped) = try scanString()
            if escaped { return Self.parseDecimal(Array(try decodeEscapes(range).utf8)) }
            return Self.parseDecimal(bytes, range)
        default:
            try skipValue()
            return nil
        }
    }

    /// An integer: a loose number with no fractional part that fits in `Int`.
    mutating func readLooseInt() throws -> Int? {
        guard let value = try readLooseNumber(), value.rounded(.towardZero) == value,
              value >= -9.0e15, value <= 9.0e15 else { return nil }
        return Int(value)
    }

    /// A string; a JSON number is returned as its text; anything else is `nil`.
    mutating func readLooseString() throws -> String? {
        switch try peekKind() {
        case .string: return try readString()
        case .number: return String(decoding: UnsafeBufferPointer(rebasing: bytes[try scanNumber()]), as: UTF8.self)
        default:
            try skipValue()
            return nil
        }
    }

    /// A boolean from `true`/`false`, the strings `"true"`/`"false"`/`"1"`/`"0"`, or the numbers 1/0.
    mutating func readLooseBool() throws -> Bool? {
        switch try peekKind() {
        case .bool: return try readBool()
        case .string:
            switch try readString().trimmingSpacesAndTabs().lowercased() {
            case "true", "1": return true
            case "false", "0": return false
            default: return nil
            }
        case .number:
            switch Self.parseDecimal(bytes, try scanNumber()) {
            case 1: return true
            case 0: return false
            default: return nil
            }
        default:
            try skipValue()
            return nil
        }
    }

    /// Parses a decimal number (JSON syntax, optional leading `+`, surrounding spaces and tabs
    /// allowed) from `buffer[range]`; `nil` unless the whole text is one finite number.
    static func parseDecimal(_ buffer: UnsafeBufferPointer<UInt8>, _ range: Range<Int>) -> Double? {
        var lower = range.lowerBound, upper = range.upperBound
        while lower < upper, buffer[lower] == 0x20 || buffer[lower] == 0x09 { lower += 1 }
        while upper > lower, buffer[upper - 1] == 0x20 || buffer[upper - 1] == 0x09 { upper -= 1 }
        guard lower < upper else { return nil }

        // Fast path, exact by construction: at most 15 significant digits and at most 22
        // fraction digits, so mantissa and 10^k are exact doubles and one division rounds
        // correctly (the classic Clinger fast path).
        var i = lower
        var negative = false
        if buffer[i] == UInt8(ascii: "-") || buffer[i] == UInt8(ascii: "+") {
            negative = buffer[i] == UInt8(ascii: "-")
            i += 1
        }
        var mantissa: UInt64 = 0
        var digits = 0, fractionDigits = 0
        var sawDot = false, simple = true
        let digitsStart = i
        while i < upper {
            let b = buffer[i]
            if isDigit(b) {
                mantissa = mantissa &* 10 &+ UInt64(b - UInt8(ascii: "0"))
                digits += 1
                if sawDot { fractionDigits += 1 }
            } else if b == UInt8(ascii: "."), !sawDot {
                sawDot = true
            } else {
                simple = false
                break
            }
            i += 1
        }
        if simple {
            let intDigits = digits - fractionDigits
            guard digits > 0, intDigits > 0 || (sawDot && fractionDigits > 0),
                  !(sawDot && fractionDigits == 0), i > digitsStart else { return nil }
            if digits <= 15, fractionDigits <= 22 {
                let value = Double(mantissa) / powersOfTen[fractionDigits]
                return negative ? -value : value
            }
        }
        return parseSlow(UnsafeBufferPointer(rebasing: buffer[lower..<upper]))
    }

    /// ``parseDecimal(_:_:)`` over a whole array.
    static func parseDecimal(_ bytes: [UInt8]) -> Double? {
        bytes.withUnsafeBufferPointer { parseDecimal($0, 0..<$0.count) }
    }

    /// Exponents and long mantissas: validated as decimal syntax, then parsed by the standard
    /// library (which would otherwise also accept `nan`, `inf` and hex).
    private static func parseSlow(_ text: UnsafeBufferPointer<UInt8>) -> Double? {
        var i = 0
        if i < text.count, text[i] == UInt8(ascii: "-") || text[i] == UInt8(ascii: "+") { i += 1 }
        let mantissaStart = i
        var sawDigit = false, sawDot = false
        while i < text.count, isDigit(text[i]) || (text[i] == UInt8(ascii: ".") && !sawDot) {
            if text[i] == UInt8(ascii: ".") { sawDot = true } else { sawDigit = true }
            i += 1
        }
        guard sawDigit, i > mantissaStart else { return nil }
        if i < text.count, text[i] | 0x20 == UInt8(ascii: "e") {
            i += 1
            if i < text.count, text[i] == UInt8(ascii: "-") || text[i] == UInt8(ascii: "+") { i += 1 }
            let exponentStart = i
            while i < text.count, isDigit(text[i]) { i += 1 }
            guard i > exponentStart else { return nil }
        }
        guard i == text.count, let value = Double(String(decoding: text, as: UTF8.self)), value.isFinite else {
            return nil
        }
        return value
    }

    private static let powersOfTen: [Double] = (0...22).map { exponent in
        (0..<exponent).reduce(1.0) { value, _ in value * 10 }
    }
}


