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
enum Escaping {
    /// Appends a label value, escaping `\`, `"` and newline.
    @inline(__always)
    static func appendLabelValue(_ value: String, to bytes: inout [UInt8]) {
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
            for byte in utf8 { appendEscaped(byte, escapeQuotes: escapeQuotes, to: &bytes) }
        }
        if handled == nil {
            for byte in text.utf8 { appendEscaped(byte, escapeQuotes: escapeQuotes, to: &bytes) }
        }
    }

    @inline(__always)
    private static func needsEscaping(_ utf8: UnsafeBufferPointer<UInt8>, escapeQuotes: Bool) -> Bool {
        for byte in utf8 where byte == UInt8(ascii: "\\") || byte == UInt8(ascii: "\n")
            || (escapeQuotes && byte == UInt8(ascii: "\"")) {
            return true
        }
        return false
    }

    @inline(__always)
    private static func appendEscaped(_ byte: UInt8, escapeQuotes: Bool, to bytes: inout [UInt8]) {
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
        default:
            bytes.append(byte)
        }
    }
}
