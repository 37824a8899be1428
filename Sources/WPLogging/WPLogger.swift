/// A cheap, copyable handle for structured logging, passed to library code by injection.
///
/// A logger has a label, a minimum level, fixed fields that every record carries, and a
/// sink. Child loggers add fields or change the label without touching the parent:
///
/// ```swift
/// let log = WPLogger(label: "client", level: .info, sink: sink)
/// let deviceLog = log.child(fields: ["device_id": "e156e6cb"])
/// deviceLog.warn("reading dropped", ["field": "loadTotalWatt"])
/// ```
///
/// Every record passes through the logger's ``Redactor`` before it reaches the sink: sensitive
/// field names, registered secret values and `Bearer` tokens are masked whatever the call site
/// passes. Control characters are escaped later, by the encoder. To build a logger from a
/// ``LoggingConfiguration`` use ``LoggingConfiguration/makeLogger(label:redactor:environment:)``.
public struct WPLogger: Sendable {
    /// The component name written with every record (`client`, `server`).
    public var label: String
    /// Records below this level are dropped before anything is evaluated.
    public var level: LogLevel
    /// Fixed fields every record carries; call-site fields with the same key win.
    public var fields: LogFields
    /// Where records go.
    public let sink: any LogSink
    /// Masks secrets in every record; shared by reference with every child logger.
    public let redactor: Redactor
    private let now: @Sendable () -> LogTimestamp

    /// Creates a logger.
    ///
    /// - Parameters:
    ///   - label: The component name written with every record.
    ///   - level: The minimum level written; `info` by default.
    ///   - sink: Where records go.
    ///   - fields: Fixed fields for every record.
    ///   - now: The wall clock stamped on records; ``LogTimestamp/now()`` by default.
    ///   - redactor: The secrets to mask; share one redactor between the loggers that may see
    ///     the same secrets. A fresh one (masking sensitive keys and Bearer tokens) by default.
    public init(label: String, level: LogLevel = .info, sink: any LogSink,
                fields: LogFields = [:], now: @escaping @Sendable () -> LogTimestamp = { LogTimestamp.now() },
                redactor: Redactor = Redactor()) {
        self.label = label
        self.level = level
        self.sink = sink
        self.fields = fields
        self.now = now
        self.redactor = redactor
    }

    /// A logger that discards everything.
    public static var disabled: WPLogger {
        WPLogger(label: "disabled", level: .error, sink: DiscardingSink())
    }

    /// A logger with the same sink and level, a new label (if given) and extra fixed fields.
    public func child(label: String? = nil, fields extra: LogFields = [:]) -> WPLogger {
        var copy = self
        if let label { copy.label = label }
        copy.fields.merge(extra) { _, new in new }
        return copy
    }

    /// The logger of a component of this logger's owner: the same sink, level, redactor and
    /// fields (plus `fields`), labelled `name` nested under this logger's label with a dot
    /// (`winpower` → `winpower.collector`), or `name` alone when this label is empty.
    ///
    /// A library that logs from several components takes one logger from its embedder and
    /// makes its components' loggers with this, so its records sit under the label the
    /// embedder chose; ``child(label:fields:)`` replaces the label instead.
    public func component(_ name: String, fields extra: LogFields = [:]) -> WPLogger {
        child(label: label.isEmpty ? name : "\(label).\(name)", fields: extra)
    }

    /// Whether a record at `level` would be written.
    public func isEnabled(_ level: LogLevel) -> Bool { level >= self.level }

    /// Writes a record at `level` if the logger is enabled for it, after redaction.
    ///
    /// - Parameters:
    ///   - level: The record's severity.
    ///   - message: The message; only evaluated when the level is enabled.
    ///   - fields: Fields for this record, merged over the logger's fixed fields.
    ///   - file: The call site's `#fileID`, written as `caller` when enabled.
    ///   - line: The call site's line.
    public func log(_ level: LogLevel, _ message: @autoclosure () -> String, _ fields: LogFields = [:],
                    file: String = #fileID, line: UInt = #line) {
        guard isEnabled(level) else { return }
        var merged = self.fields
        if !fields.isEmpty { merged.merge(fields) { _, new in new } }
        let (text, safeFields) = redactor.redact(message: message(), fields: merged)
        sink.write(LogRecord(time: now(), level: level, message: text, logger: label,
                             fields: safeFields, file: file, line: line))
    }

    /// Writes a `debug` record; see ``log(_:_:_:file:line:)``.
    public func debug(_ message: @autoclosure () -> String, _ fields: LogFields = [:],
                      file: String = #fileID, line: UInt = #line) {
        log(.debug, message(), fields, file: file, line: line)
    }

    /// Writes a `info` record; see ``log(_:_:_:file:line:)``.
    public func info(_ message: @autoclosure () -> String, _ fields: LogFields = [:],
                     file: String = #fileID, line: UInt = #line) {
        log(.info, message(), fields, file: file, line: line)
    }

    /// Writes a `warn` record; see ``log(_:_:_:file:line:)``.
    public func warn(_ message: @autoclosure () -> String, _ fields: LogFields = [:],
                     file: String = #fileID, line: UInt = #line) {
        log(.warn, message(), fields, file: file, line: line)
    }

    /// Writes a `error` record; see ``log(_:_:_:file:line:)``.
    public func error(_ message: @autoclosure () -> String, _ fields: LogFields = [:],
                      file: String = #fileID, line: UInt = #line) {
        log(.error, message(), fields, file: file, line: line)
    }
}

/// A sink that drops every record.
public struct DiscardingSink: LogSink {
    /// Creates a sink that drops every record.
    public init() {}
    /// Drops `record`.
    public func write(_ record: LogRecord) {}
}
