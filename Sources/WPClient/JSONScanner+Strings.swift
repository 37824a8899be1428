extension JSONScanner {
    /// Decodes the escapes of the string whose contents span `range`.
    func decodeEscapes(_ range: Range<Int>) throws -> String {
        var out: [UInt8] = []
        out.reserveCapacity(range.count)
        var i = range.lowerBound
        while i < range.upperBound {
            let byte = bytes[i]
            guard byte == UInt8(ascii: "\\") else {
                out.append(byte)
                i += 1
                continue
            }
            guard i + 1 < range.upperBound else { throw JSONSyntaxError(offset: i, message: "invalid escape") }
            let escape = bytes[i + 1]
            i += 2
            switch escape {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): out.append(escape)
            case UInt8(ascii: "b"): out.append(0x08)
            case UInt8(ascii: "f"): out.append(0x0C)
            case UInt8(ascii: "n"): out.append(0x0A)
            case UInt8(ascii: "r"): out.append(0x0D)
            case UInt8(ascii: "t"): out.append(0x09)
            case UInt8(ascii: "u"):
                var scalar = try hex4(at: i, end: range.upperBound)
                i += 4
                if (0xD800..<0xDC00).contains(scalar), i + 6 <= range.upperBound,
                   bytes[i] == UInt8(ascii: "\\"), bytes[i + 1] == UInt8(ascii: "u") {
                    let low = try hex4(at: i + 2, end: range.upperBound)
                    if (0xDC00..<0xE000).contains(low) {
                        scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                        i += 6
                    }
                }
                let decoded = Unicode.Scalar(scalar) ?? "\u{FFFD}"
                out.append(contentsOf: Array(String(Character(decoded)).utf8))
            default:
                throw JSONSyntaxError(offset: i - 1, message: "invalid escape '\\\(Self.printable(escape))'")
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    private func hex4(at index: Int, end: Int) throws -> UInt32 {
        guard index + 4 <= end else { throw JSONSyntaxError(offset: index, message: "invalid \\u escape") }
        var value: UInt32 = 0
        for k in index..<index + 4 {
            let b = bytes[k]
            let digit: UInt8
            switch b {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = b - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = b - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = b - UInt8(ascii: "A") + 10
            default: throw JSONSyntaxError(offset: k, message: "invalid \\u escape")
            }
            value = value << 4 | UInt32(digit)
        }
        return value
    }
}
