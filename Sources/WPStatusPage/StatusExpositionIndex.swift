import WPMetrics

/// The lines of one publication's `/metrics` text by UPS, made in one pass over the text the
/// first time a UPS page asks in that publication: every later page of the publication finds
/// its lines by key instead of scanning the whole exposition (at 1,000 UPSs, megabytes a page).
///
/// A line belongs to the UPS of its `device_id` label, under the value of its `server` label
/// (none for a single server); both are keyed as the exposition spells them (escaped).
package struct StatusExpositionIndex: Sendable {
    private let text: [UInt8]
    /// Line ranges in ``text``, by `server` and `device_id` label values joined by U+001F.
    private let lines: [String: [Range<Int>]]

    package init(text: [UInt8]) {
        self.text = text
        var lines: [String: [Range<Int>]] = [:]
        var start = 0
        while start < text.count {
            var end = start
            while end < text.count, text[end] != 0x0A { end += 1 }
            if end > start, text[start] != 0x23 {
                let (server, device) = Self.labels(in: text, start..<end)
                if let device { lines[(server ?? "") + "\u{1F}" + device, default: []].append(start..<end) }
            }
            start = end + 1
        }
        self.lines = lines
    }

    /// The lines of the UPS `device` of `server` (`""`: no `server` label), at most `limit`.
    package func lines(server: String, device: String, limit: Int) -> [String] {
        let key = Self.escaped(server) + "\u{1F}" + Self.escaped(device)
        return (lines[key] ?? []).prefix(limit).map { String(decoding: text[$0], as: UTF8.self) }
    }

    /// A label value as the exposition writes it (WPMetrics' escaping: `\`, `"` and newline
    /// escaped, control and bidirectional characters replaced).
    static func escaped(_ text: String) -> String {
        var bytes: [UInt8] = []
        Escaping.appendLabelValue(text, to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// The (escaped) values of the `server` and `device_id` labels of the sample line `line`.
    private static func labels(in text: [UInt8], _ line: Range<Int>) -> (server: String?, device: String?) {
        guard let brace = text[line].firstIndex(of: UInt8(ascii: "{")) else { return (nil, nil) }
        var (server, device): (String?, String?) = (nil, nil)
        var index = brace + 1
        let end = line.upperBound
        while index < end, text[index] != UInt8(ascii: "}") {
            let nameStart = index
            while index < end, text[index] != UInt8(ascii: "=") { index += 1 }
            guard index + 1 < end, text[index + 1] == UInt8(ascii: "\"") else { break }
            let name = text[nameStart..<index]
            index += 2
            let valueStart = index
            while index < end, text[index] != UInt8(ascii: "\"") { index += text[index] == UInt8(ascii: "\\") ? 2 : 1 }
            guard index < end else { break }
            if name.elementsEqual("device_id".utf8) {
                device = String(decoding: text[valueStart..<index], as: UTF8.self)
            } else if name.elementsEqual("server".utf8) {
                server = String(decoding: text[valueStart..<index], as: UTF8.self)
            }
            index += 1
            if index < end, text[index] == UInt8(ascii: ",") { index += 1 }
        }
        return (server, device)
    }
}
