import WPText

/// Encodes records for people reading a terminal: aligned columns, `key=value` fields.
///
/// ```text
/// 2026-11-22T02:37:19.123Z INFO  client       login ok  devices=3 url="https://ups.local:8081"
/// 2026-11-22T02:37:19.200Z ERROR collector    WPCollector/Cycle.swift:88  cycle failed  error=timeout
/// ```
///
/// Columns: time (RFC 3339 UTC, milliseconds), level (upper case, padded to 5), logger label
/// (padded to 12), the caller when the ``CallerPolicy`` asks for it, the message, then two
/// spaces and the fields sorted by key. A field value is written in double quotes when it is
/// empty or contains a space, `=`, `"`, `\` or anything that must be escaped. Control
/// characters are escaped (`\n`, `\u001b`, ...) in the message, labels, keys and values, so a
/// record is always one line and cannot move the terminal cursor or change its colours.
///
/// With `colors` on, the level is coloured (debug grey, info green, warn yellow, error red) and
/// the time and field keys are dimmed using ANSI SGR codes. The factory turns colours on only
/// when the destination is a terminal (see ``LoggingEnvironment/isTerminal``).
public struct ConsoleLogEncoder: LogEncoder {
    /// Which records carry the caller column.
    public var caller: CallerPolicy
    /// Whether to emit ANSI colour codes.
    public var colors: Bool

    /// Width the logger label is padded to.
    static let loggerWidth = 12

    /// Creates an encoder of console lines.
    ///
    /// - Parameters:
    ///   - caller: Which records carry the caller column; none by default.
    ///   - colors: Whether to emit ANSI colour codes; off by default.
    public init(caller: CallerPolicy = .never, colors: Bool = false) {
        self.caller = caller
        self.colors = colors
    }

    /// Appends `record` to `out` as one console line, its newline included.
    public func encode(_ record: LogRecord, into out: inout [UInt8]) {
        out.reserveCapacity(out.count + 96 + record.message.utf8.count + record.fields.count * 20)
        style(Self.dim, to: &out)
        Timestamp.appendRFC3339(record.time, to: &out)
        style(Self.reset, to: &out)
        out.append(UInt8(ascii: " "))

        style(Self.color(for: record.level), to: &out)
        let levelName = Self.levelName(record.level)
        out.append(contentsOf: levelName.utf8)
        style(Self.reset, to: &out)
        pad(from: levelName.utf8.count, to: 5, out: &out)
        out.append(UInt8(ascii: " "))

        let labelStart = out.count
        TextEscaping.append(record.logger, quoting: .bare, to: &out)
        pad(from: out.count - labelStart, to: Self.loggerWidth, out: &out)
        out.append(UInt8(ascii: " "))

        if caller.includes(record) {
            TextEscaping.append(record.file, quoting: .bare, to: &out)
            out.append(UInt8(ascii: ":"))
            out.append(contentsOf: String(record.line).utf8)
            out.append(contentsOf: "  ".utf8)
        }

        TextEscaping.append(record.message, quoting: .bare, to: &out)
        if !record.fields.isEmpty {
            out.append(UInt8(ascii: " "))
            for (key, value) in record.fields.sorted(by: { $0.key < $1.key }) {
                out.append(UInt8(ascii: " "))
                style(Self.dim, to: &out)
                appendMaybeQuoted(key, to: &out)
                out.append(UInt8(ascii: "="))
                style(Self.reset, to: &out)
                appendValue(value, to: &out)
            }
        }
        out.append(UInt8(ascii: "\n"))
    }

    private func appendValue(_ value: LogValue, to out: inout [UInt8]) {
        switch value {
        case .string(let text): appendMaybeQuoted(text, to: &out)
        case .int(let number): NumberText.appendInt(number, to: &out)
        case .double(let number): out.append(contentsOf: NumberText.double(number).utf8)
        case .bool(let flag): out.append(contentsOf: (flag ? "true" : "false").utf8)
        }
    }

    private func appendMaybeQuoted(_ text: String, to out: inout [UInt8]) {
        if TextEscaping.needsQuotes(text) {
            out.append(UInt8(ascii: "\""))
            TextEscaping.append(text, quoting: .quoted, to: &out)
            out.append(UInt8(ascii: "\""))
        } else {
            out.append(contentsOf: text.utf8)
        }
    }

    private func pad(from width: Int, to target: Int, out: inout [UInt8]) {
        if width < target { out.append(contentsOf: repeatElement(UInt8(ascii: " "), count: target - width)) }
    }

    private func style(_ code: String, to out: inout [UInt8]) {
        if colors { out.append(contentsOf: code.utf8) }
    }

    static let reset = "\u{1B}[0m"
    static let dim = "\u{1B}[2m"

    static func levelName(_ level: LogLevel) -> String {
        switch level {
        case .debug: "DEBUG"
        case .info: "INFO"
        case .warn: "WARN"
        case .error: "ERROR"
        }
    }

    static func color(for level: LogLevel) -> String {
        switch level {
        case .debug: "\u{1B}[90m"
        case .info: "\u{1B}[32m"
        case .warn: "\u{1B}[33m"
        case .error: "\u{1B}[31m"
        }
    }
}
