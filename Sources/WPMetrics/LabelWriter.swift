/// Writes `{name="value",...}` for one family, with the `{name="` / `",name="` separators
/// precomputed once per family so each sample only copies bytes and escapes values.
struct LabelWriter {
    /// `{a="`, `",b="`, `",c="` for label names a, b, c.
    private let openers: [[UInt8]]

    init(names: [String]) {
        var openers: [[UInt8]] = []
        openers.reserveCapacity(names.count)
        for (index, name) in names.enumerated() {
            var opener: [UInt8] = index == 0 ? [UInt8(ascii: "{")] : [UInt8(ascii: "\""), UInt8(ascii: ",")]
            opener.append(contentsOf: name.utf8)
            opener.append(contentsOf: "=\"".utf8)
            openers.append(opener)
        }
        self.openers = openers
    }

    /// Writes the label set; nothing at all when the family has no labels.
    @inline(__always)
    func write(_ values: [String], into bytes: inout [UInt8]) {
        if openers.isEmpty { return }
        for index in 0..<min(openers.count, values.count) {
            bytes.append(contentsOf: openers[index])
            Escaping.appendLabelValue(values[index], to: &bytes)
        }
        bytes.append(UInt8(ascii: "\""))
        bytes.append(UInt8(ascii: "}"))
    }

    /// Writes the label set plus one numeric label (`le`, `quantile`) at the end.
    func write(_ values: [String], extraName: StaticString, extraValue: Double, into bytes: inout [UInt8]) {
        if openers.isEmpty {
            bytes.append(UInt8(ascii: "{"))
        } else {
            for index in 0..<min(openers.count, values.count) {
                bytes.append(contentsOf: openers[index])
                Escaping.appendLabelValue(values[index], to: &bytes)
            }
            bytes.append(UInt8(ascii: "\""))
            bytes.append(UInt8(ascii: ","))
        }
        bytes.append(contentsOf: UnsafeBufferPointer(start: extraName.utf8Start, count: extraName.utf8CodeUnitCount))
        bytes.append(UInt8(ascii: "="))
        bytes.append(UInt8(ascii: "\""))
        NumberFormatting.append(extraValue, to: &bytes)
        bytes.append(UInt8(ascii: "\""))
        bytes.append(UInt8(ascii: "}"))
    }
}

/// Exposition escaping rules.
///
/// Label values and help texts escape `\`, newline and (label values, OpenMetrics help) `"`.
/// Control characters the formats cannot escape — C0 other than tab and newline, DEL and C1
/// (NUL, ESC, CSI…) — and the bidirectional formatting characters (U+202A–U+202E,
/// U+2066–U+2069, U+200E, U+200F, U+061C) become U+FFFD, as `/health` and the status pages
/// show them (`DisplayText`): label values come from WinPower (aliases, alarm texts) and the
/// configuration, and such characters would reach Prometheus, terminals and dashboards as they
/// are (an alias with U+202E shows reversed, hiding what it says).
package enum Escaping {
    /// U+FFFD REPLACEMENT CHARACTER in UTF-8.
    private static let replacement: [UInt8] = [0xEF, 0xBF, 0xBD]

    /// Appends a label value, escaping `\`, `"` and newline and replacing control characters.
    @inline(__always)
    package static func appendLabelValue(_ value: String, to bytes: inout [UInt8]) {
        append(value, escapeQuotes: true, to: &bytes)
    }

    /// Appends help text, escaping `\` and newline, and `"` when `escapeQuotes` (OpenMetrics).
    static func appendHelp(_ help: String, escapeQuotes: Bool, to bytes: inout [UInt8]) {
        append(help, escapeQuotes: escapeQuotes, to: &bytes)
    }

    @inline(__always)
    private static func append(_ text: String, escapeQuotes: Bool, to bytes: inout [UInt8]) {
        let handled: Void? = text.utf8.withContiguousStorageIfAvailable { utf8 in
            if !needsEscaping(utf8, escapeQuotes: escapeQuotes) {
                bytes.append(contentsOf: utf8)
                return
            }
            appendEscaped(utf8, escapeQuotes: escapeQuotes, to: &bytes)
        }
        if handled == nil {
            appendEscaped(Array(text.utf8), escapeQuotes: escapeQuotes, to: &bytes)
        }
    }

    @inline(__always)
    private static func needsEscaping(_ utf8: UnsafeBufferPointer<UInt8>, escapeQuotes: Bool) -> Bool {
        for byte in utf8 where byte < 0x20 || byte == UInt8(ascii: "\\") || byte == 0x7F || byte == 0xC2 || byte == 0xE2
            || byte == 0xD8 || (escapeQuotes && byte == UInt8(ascii: "\"")) {
            return true
        }
        return false
    }

    /// Whether `E2 second third` is a bidirectional formatting character: U+200E, U+200F,
    /// U+202A–U+202E (`E2 80 …`) or U+2066–U+2069 (`E2 81 …`).
    @inline(__always)
    static func isBidiFormatting(_ second: UInt8, _ third: UInt8) -> Bool {
        (second == 0x80 && (third == 0x8E || third == 0x8F || (0xAA...0xAE).contains(third)))
            || (second == 0x81 && (0xA6...0xA9).contains(third))
    }

    private static func appendEscaped(_ utf8: some RandomAccessCollection<UInt8>, escapeQuotes: Bool,
                                      to bytes: inout [UInt8]) {
        var index = utf8.startIndex
        while index != utf8.endIndex {
            let byte = utf8[index]
            let next = utf8.index(after: index)
            switch byte {
            case UInt8(ascii: "\\"):
                bytes.append(UInt8(ascii: "\\"))
                bytes.append(UInt8(ascii: "\\"))
            case UInt8(ascii: "\n"):
                bytes.append(UInt8(ascii: "\\"))
                bytes.append(UInt8(ascii: "n"))
            case UInt8(ascii: "\"") where escapeQuotes:
                bytes.append(UInt8(ascii: "\\"))
                bytes.append(UInt8(ascii: "\""))
            case UInt8(ascii: "\t"):
                bytes.append(byte)
            case 0..<0x20, 0x7F:
                bytes.append(contentsOf: replacement)
            case 0xC2 where next != utf8.endIndex && (0x80...0x9F).contains(utf8[next]):
                // A C1 control character (U+0080–U+009F), two bytes in UTF-8.
                bytes.append(contentsOf: replacement)
                index = utf8.index(after: next)
                continue
            case 0xD8 where next != utf8.endIndex && utf8[next] == 0x9C:
                // U+061C ARABIC LETTER MARK.
                bytes.append(contentsOf: replacement)
                index = utf8.index(after: next)
                continue
            case 0xE2 where next != utf8.endIndex && utf8.index(after: next) != utf8.endIndex
                && Self.isBidiFormatting(utf8[next], utf8[utf8.index(after: next)]):
                bytes.append(contentsOf: replacement)
                index = utf8.index(next, offsetBy: 2)
                continue
            default:
                bytes.append(byte)
            }
            index = next
        }
    }
}
