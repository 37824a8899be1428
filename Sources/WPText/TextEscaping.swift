/// The one JSON string escaping, byte by byte: the log encoders' (JSON records and console
/// lines, so that no message, field or label can break a record across lines or inject terminal
/// control sequences) and that of the JSON bodies written by hand (``Swift/String/jsonQuoted``).
///
/// Escaped everywhere: C0 controls (U+0000–U+001F), DEL (U+007F), C1 controls (U+0080–U+009F,
/// which include NEL and the 8-bit CSI some terminals honour) and the Unicode line and paragraph
/// separators U+2028/U+2029. Every other character, including all other non-ASCII text, passes
/// through as UTF-8. Escapes use the JSON spelling in both encoders: `\n`, `\r`, `\t`, `\b`,
/// `\f`, otherwise `\u00XX` (lower-case hex).
package enum TextEscaping {
    /// How `"` and `\` are treated.
    package enum Quoting {
        /// Escape `"` and `\` (JSON strings, quoted console values).
        case quoted
        /// Leave `"` and `\` alone (console messages, which are not quoted).
        case bare
    }

    /// Appends `text`, escaped, to `out`.
    package static func append(_ text: String, quoting: Quoting, to out: inout [UInt8]) {
        var text = text
        text.withUTF8 { append($0, quoting: quoting, to: &out) }
    }

    package static func append(_ bytes: UnsafeBufferPointer<UInt8>, quoting: Quoting, to out: inout [UInt8]) {
        let escapeQuotes = quoting == .quoted
        var runStart = 0
        var index = 0
        let count = bytes.count
        while index < count {
            let byte = bytes[index]
            var width = 0 // bytes of the sequence to escape at `index`; 0 = keep
            var scalar: UInt32 = 0
            if byte < 0x20 || byte == 0x7F || (escapeQuotes && (byte == 0x22 || byte == 0x5C)) {
                width = 1
                scalar = UInt32(byte)
            } else if byte == 0xC2, index + 1 < count, bytes[index + 1] >= 0x80, bytes[index + 1] <= 0x9F {
                width = 2
                scalar = UInt32(bytes[index + 1])
            } else if byte == 0xE2, index + 2 < count, bytes[index + 1] == 0x80,
                      bytes[index + 2] == 0xA8 || bytes[index + 2] == 0xA9 {
                width = 3
                scalar = 0x2000 + UInt32(bytes[index + 2]) - 0x80
            }
            if width == 0 {
                index += 1
                continue
            }
            if runStart < index { out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart..<index])) }
            appendEscape(scalar, to: &out)
            index += width
            runStart = index
        }
        if runStart < count { out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart..<count])) }
    }

    /// Whether `text` contains anything ``append(_:quoting:to:)`` would escape in `.quoted`
    /// mode, or a space or `=`: such console values are written in quotes.
    package static func needsQuotes(_ text: String) -> Bool {
        if text.isEmpty { return true }
        for byte in text.utf8 where byte <= 0x20 || byte == 0x22 || byte == 0x3D || byte == 0x5C
            || byte == 0x7F || byte == 0xC2 || byte == 0xE2 {
            return true
        }
        return false
    }

    private static func appendEscape(_ scalar: UInt32, to out: inout [UInt8]) {
        out.append(UInt8(ascii: "\\"))
        switch scalar {
        case 0x22: out.append(UInt8(ascii: "\""))
        case 0x5C: out.append(UInt8(ascii: "\\"))
        case 0x0A: out.append(UInt8(ascii: "n"))
        case 0x0D: out.append(UInt8(ascii: "r"))
        case 0x09: out.append(UInt8(ascii: "t"))
        case 0x08: out.append(UInt8(ascii: "b"))
        case 0x0C: out.append(UInt8(ascii: "f"))
        default:
            out.append(UInt8(ascii: "u"))
            for shift: UInt32 in [12, 8, 4, 0] {
                let nibble = UInt8(scalar >> shift & 0xF)
                out.append(nibble < 10 ? 0x30 + nibble : 0x57 + nibble)
            }
        }
    }
}

extension String {
    /// The string as a JSON string literal, quotes included: the escaping of
    /// ``TextEscaping`` (RFC 8259 plus DEL, C1 controls and U+2028/U+2029), other non-ASCII
    /// text as UTF-8. For the few JSON bodies the exporter's modules write by hand.
    package var jsonQuoted: String {
        var out: [UInt8] = [UInt8(ascii: "\"")]
        out.reserveCapacity(utf8.count + 2)
        TextEscaping.append(self, quoting: .quoted, to: &out)
        out.append(UInt8(ascii: "\""))
        return String(decoding: out, as: UTF8.self)
    }
}
