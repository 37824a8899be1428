import Foundation

/// A cheap, copyable handle for structured logging, passed to library code by injection.
///
/// A logger has a label, a minimum level, fixed fields that every record carries, and a
/// sink. Child loggers add fields or change the label without touching the parent:
///
/// ```swift
/// let log = Logger(label: "client", level: .info, sink: sink)
/// let deviceLog = log.child(fields: ["device_id": "e156e6cb"])
/// deviceLog.warn("reading dropped", ["field": "loadTotalWatt"])
/// ```
public struct Logger: Sendable {
    public var label: String
    public var level: LogLevel
    public var fields: LogFields
    public let sink: any LogSink
    private let now: @Sendable () -> Date

    public init(label: String, level: LogLevel = .info, sink: any LogSink,
                fields: LogFields = [:], now: @escaping @Sendable () -> Date = { Date() }) {
        self.label = label
        self.level = level
        self.sink = sink
        self.fields = fields
        self.now = now
    }

    /// A logger that discards everything.
    public static var disabled: Logger {
        Logger(label: "disabled", level: .error, sink: DiscardingSink())
    }

    /// A logger with the same sink and level, a new label (if given) and extra fixed fields.
    public func child(label: String? = nil, fields extra: LogFields = [:]) -> Logger {
        var copy = self
        if let label { copy.label = label }
        copy.fields.merge(extra) { _, new in new }
        return copy
    }

    /// Whether a record at `level` would be written.
    public func isEnabled(_ level: LogLevel) -> Bool { level >= self.level }

    public func log(_ level: LogLevel, _ message: @autoclosure () -> String, _ fields: LogFields = [:],
                    file: String = #fileID, line: UInt = #line) {
        guard isEnabled(level) else { return }
        var merged = self.fields
        merged.merge(fields) { _, new in new }
        sink.write(LogRecord(time: now(), level: level, message: message(), logger: label,
                             fields: merged, file: file, line: line))
    }

    public func debug(_ message: @autoclosure () -> String, _ fields: LogFields = [:],
                      file: String = #fileID, line: UInt = #line) {
        log(.debug, message(), fields, file: file, line: line)
    }

    public func info(_ message: @autoclosure () -> String, _ fields: LogFields = [:],
                     file: String = #fileID, line: UInt = #line) {
        log(.info, message(), fields, file: file, line: line)
    }

    public func warn(_ message: @autoclosure () -> String, _ fields: LogFields = [:],
                     file: String = #fileID, line: UInt = #line) {
        log(.warn, message(), fields, file: file, line: line)
    }

    public func error(_ message: @autoclosure () -> String, _ fields: LogFields = [:],
                      file: String = #fileID, line: UInt = #line) {
        log(.error, message(), fields, file: file, line: line)
    }
}

/// A sink that drops every record.
public struct DiscardingSink: LogSink {
    public init() {}
    public func write(_ record: LogRecord) {}
}
