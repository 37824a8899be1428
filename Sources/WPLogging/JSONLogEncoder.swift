import WPText

/// Encodes records as JSON Lines: one object per line, keys in a fixed order.
///
/// The object starts with `time` (RFC 3339, UTC, milliseconds), `level`, `logger`, `message`,
/// then `caller` when the ``CallerPolicy`` asks for it, then the record's fields sorted by key.
/// A field whose key collides with one of those five names is written as `fields.<key>` so the
/// object never has duplicate keys.
///
/// Strings are escaped per RFC 8259, plus DEL, C1 controls and U+2028/U+2029; other non-ASCII
/// text is written as raw UTF-8. Integers and finite doubles are JSON numbers; `NaN`, `+Inf`
/// and `-Inf` (not representable in JSON) are written as the strings `"NaN"`, `"+Inf"`, `"-Inf"`.
///
/// ```swift
/// let line = JSONLogEncoder().encodedLine(record)
/// // {"time":"2026-11-22T02:37:19.123Z","level":"info","logger":"client","message":"login ok","devices":3}
/// ```
public struct JSONLogEncoder: LogEncoder {
    /// Which records carry `caller`.
    public var caller: CallerPolicy

    /// Creates an encoder of JSON lines.
    ///
    /// - Parameter caller: Which records carry `caller`; none by default.
    public init(caller: CallerPolicy = .never) {
        self.caller = caller
    }

    static func isReserved(_ key: String) -> Bool {
        switch key {
        case "time", "level", "logger", "message", "caller": true
        default: false
        }
    }

    /// Appends `record` to `out` as one JSON object and a newline.
    public func encode(_ record: LogRecord, into out: inout [UInt8]) {
        out.reserveCapacity(out.count + 128 + record.message.utf8.count + record.fields.count * 24)
        out.append(contentsOf: #"{"time":""#.utf8)
        Timestamp.appendRFC3339(record.time, to: &out)
        out.append(contentsOf: #"","level":""#.utf8)
        out.append(contentsOf: record.level.description.utf8)
        out.append(contentsOf: #"","logger":"#.utf8)
        appendString(record.logger, to: &out)
        out.append(contentsOf: #","message":"#.utf8)
        appendString(record.message, to: &out)
        if caller.includes(record) {
            out.append(contentsOf: #","caller":""#.utf8)
            TextEscaping.append(record.file, quoting: .quoted, to: &out)
            out.append(UInt8(ascii: ":"))
            out.append(contentsOf: String(record.line).utf8)
            out.append(UInt8(ascii: "\""))
        }
        for (key, value) in record.fields.sorted(by: { $0.key < $1.key }) {
            out.append(UInt8(ascii: ","))
            appendString(Self.isReserved(key) ? "fields." + key : key, to: &out)
            out.append(UInt8(ascii: ":"))
            appendValue(value, to: &out)
        }
        out.append(contentsOf: "}\n".utf8)
    }

    private func appendString(_ text: String, to out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        TextEscaping.append(text, quoting: .quoted, to: &out)
        out.append(UInt8(ascii: "\""))
    }

    private func appendValue(_ value: LogValue, to out: inout [UInt8]) {
        switch value {
        case .string(let text):
            appendString(text, to: &out)
        case .int(let number):
            NumberText.appendInt(number, to: &out)
        case .double(let number):
            if number.isFinite {
                out.append(contentsOf: NumberText.double(number).utf8)
            } else {
                appendString(NumberText.double(number), to: &out)
            }
        case .bool(let flag):
            out.append(contentsOf: (flag ? "true" : "false").utf8)
        }
    }
}
