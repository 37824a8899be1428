import Logging
import WPLogging

/// A swift-log `LogHandler` writing through a WPLogging ``WPLogging/Logger``: its sink, its
/// encoders and its redactor, so what libraries log through swift-log lands in the service's
/// WPLogging output with the same secrets masked.
///
/// ```swift
/// let base = WPLogger(label: "service", sink: StreamSink.standardError(encoder: JSONLogEncoder()))
/// LoggingSystem.bootstrap { label in BridgeLogHandler(label: label, logger: base) }
/// ```
///
/// - Levels: swift-log's `trace` and `debug` become `debug`, `info` and `notice` become
///   `info`, `warning` becomes `warn`, `error` and `critical` become `error`. The swift-log
///   level decides what is written (swift-log filters before calling the handler); it starts
///   at the WPLogging logger's level.
/// - Metadata: the handler's, the metadata provider's and the call's, merged in that order,
///   flattened into fields by ``flatten(_:)`` (nested keys joined with dots). The swift-log
///   `source` is written as the field `source`; an attached error as `error`.
/// - Redaction: every record goes through the WPLogging logger's ``Redactor``, so sensitive
///   field names (`password`, `authorization`, `headers.Authorization`…) and registered
///   secrets are masked in fields and message alike.
public struct BridgeLogHandler: LogHandler {
    /// The WPLogging logger records are written through; its label is the swift-log label.
    public private(set) var logger: WPLogger
    /// The handler's own metadata (value semantics: changes affect this handler only).
    public var metadata: Logger.Metadata = [:]
    /// The least severe swift-log level written.
    public var logLevel: Logger.Level
    /// Supplies contextual metadata (task locals) for every record.
    public var metadataProvider: Logger.MetadataProvider?

    /// Creates a handler for the swift-log logger `label`, writing through `logger` (its sink,
    /// fixed fields and redactor) under that label.
    public init(label: String, logger: WPLogger,
                metadataProvider: Logger.MetadataProvider? = nil) {
        var inner = logger.child(label: label)
        self.logLevel = Self.swiftLogLevel(for: inner.level)
        inner.level = .debug  // swift-log has already filtered by `logLevel`
        self.logger = inner
        self.metadataProvider = metadataProvider
    }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    public func log(event: LogEvent) {
        var merged = metadata
        if let provided = metadataProvider?.get(), !provided.isEmpty {
            merged.merge(provided) { _, new in new }
        }
        if let call = event.metadata, !call.isEmpty {
            merged.merge(call) { _, new in new }
        }
        var fields = Self.flatten(merged)
        if !event.source.isEmpty { fields["source"] = .string(event.source) }
        if let error = event.error { fields["error"] = .string(String(describing: error)) }
        logger.log(Self.level(for: event.level), event.message.description, fields,
                   file: event.file, line: event.line)
    }

    /// The WPLogging level a swift-log level is written at.
    public static func level(for level: Logger.Level) -> LogLevel {
        switch level {
        case .trace, .debug: return .debug
        case .info, .notice: return .info
        case .warning: return .warn
        case .error, .critical: return .error
        }
    }

    /// The swift-log level a handler starts at for a WPLogging logger at `level`.
    public static func swiftLogLevel(for level: LogLevel) -> Logger.Level {
        switch level {
        case .debug: return .debug
        case .info: return .info
        case .warn: return .warning
        case .error: return .error
        }
    }

    /// swift-log metadata as flat WPLogging fields.
    ///
    /// Strings stay strings; `stringConvertible` values become their description; a dictionary
    /// `["http": ["method": "GET"]]` becomes `http.method`; an array `["ids": ["a", "b"]]`
    /// becomes `ids.0` and `ids.1`. An empty dictionary or array is written as `[:]` or `[]` so
    /// the key is not lost. Nesting deeper than ``maximumDepth`` is written as its description.
    public static func flatten(_ metadata: Logger.Metadata) -> LogFields {
        var fields: LogFields = [:]
        for (key, value) in metadata {
            add(value, key: key, depth: 0, into: &fields)
        }
        return fields
    }

    /// How deep nested metadata is flattened before the rest is written as one value.
    public static var maximumDepth: Int { 8 }

    private static func add(_ value: Logger.MetadataValue, key: String, depth: Int,
                            into fields: inout LogFields) {
        switch value {
        case .string(let text):
            fields[key] = .string(text)
        case .stringConvertible(let convertible):
            fields[key] = .string(convertible.description)
        case .dictionary(let dictionary):
            if dictionary.isEmpty || depth >= maximumDepth {
                fields[key] = .string(value.description)
                return
            }
            for (child, nested) in dictionary {
                add(nested, key: key + "." + child, depth: depth + 1, into: &fields)
            }
        case .array(let array):
            if array.isEmpty || depth >= maximumDepth {
                fields[key] = .string(value.description)
                return
            }
            for (index, nested) in array.enumerated() {
                add(nested, key: key + "." + String(index), depth: depth + 1, into: &fields)
            }
        }
    }
}
