import Logging
import Synchronization
import WPLogging

/// A WPLogging `LogSink` writing into swift-log: the other direction of ``BridgeLogHandler``.
/// A service whose logging backend is swift-log (its `LoggingSystem` bootstrapped with any
/// handler) gives the libraries of this repository, the embedded exporter included, a
/// WPLogging logger on this sink, and their records go to that backend.
///
/// - **Label**: each record's `logger` (`collector`, `client`, …) under `labelPrefix`
///   (`winpower.collector` with the prefix `winpower`), one swift-log logger per label, made
///   on first use.
/// - **Levels**: `debug` → `debug`, `info` → `info`, `warn` → `warning`, `error` → `error`.
///   WPLogging filters by its logger's level first; swift-log's handler filters again by its own.
/// - **Fields** become metadata: strings as strings, numbers and booleans as
///   `stringConvertible` (their text); the record's file and line are passed on as its source
///   location. Records arrive already redacted by the WPLogging logger's `Redactor`.
///
/// Do not combine it with ``BridgeLogHandler`` over the same logger: a record would go round.
///
/// ```swift
/// LoggingSystem.bootstrap(StreamLogHandler.standardError)        // the service's backend
/// let log = WPLogger(label: "winpower", sink: SwiftLogSink(labelPrefix: "winpower"))
/// let exporter = try Exporter(configuration: configuration, logger: log)
/// ```
public final class SwiftLogSink: LogSink {
    /// Prefixed to every record's label, with a dot; none when empty.
    public let labelPrefix: String
    private let makeLogger: @Sendable (String) -> Logger
    private let loggers = LoggerCache()

    /// A sink writing through swift-log's `LoggingSystem`.
    ///
    /// - Parameters:
    ///   - labelPrefix: nests every record's label (`winpower.collector`); empty by default.
    ///   - makeLogger: makes the swift-log logger of a label; `Logger(label:)` by
    ///     default (the bootstrapped backend).
    public init(labelPrefix: String = "",
                makeLogger: @escaping @Sendable (String) -> Logger = { Logger(label: $0) }) {
        self.labelPrefix = labelPrefix
        self.makeLogger = makeLogger
    }

    public func write(_ record: LogRecord) {
        let label = labelPrefix.isEmpty ? record.logger
            : record.logger.isEmpty ? labelPrefix : labelPrefix + "." + record.logger
        let logger = loggers.logger(for: label, make: makeLogger)
        var metadata: Logger.Metadata = [:]
        for (key, value) in record.fields {
            switch value {
            case .string(let text): metadata[key] = .string(text)
            default: metadata[key] = .stringConvertible(value.description)
            }
        }
        logger.log(level: BridgeLogHandler.swiftLogLevel(for: record.level), "\(record.message)", metadata: metadata,
                   source: nil, file: record.file, function: "", line: record.line)
    }

    /// A sink writing into `logger`'s handler, however that one `Logger` was made (not
    /// necessarily the bootstrapped backend), with its metadata: each record under a label
    /// nested in `logger`'s (`myservice.collector`), which the handler, made for `logger`'s own
    /// label, also finds in the metadata key `logger`.
    public convenience init(logger: Logger) {
        let handler = logger.handler
        self.init(labelPrefix: logger.label) { label in
            var nested = Logger(label: label) { _ in handler }
            nested[metadataKey: "logger"] = .string(label)
            return nested
        }
    }

}

/// One swift-log logger per label, made once.
private final class LoggerCache: Sendable {
    private let state = Mutex<[String: Logger]>([:])

    func logger(for label: String, make: (String) -> Logger) -> Logger {
        if let found = state.withLock({ $0[label] }) { return found }
        let made = make(label)
        return state.withLock { loggers in
            if let found = loggers[label] { return found }
            loggers[label] = made
            return made
        }
    }
}

extension WPLogger {
    /// A WPLogging logger writing into a service's swift-log `logger`: its handler, its level
    /// (`trace` as `debug`, `notice` as `info`, `critical` as `error`), its label as the prefix of
    /// every record's (``SwiftLogSink/init(logger:)``), secrets masked by `redactor` first. How an
    /// embedded exporter takes the service's `Logger`:
    ///
    /// ```swift
    /// let exporter = try Exporter(configuration: configuration, logger: .swiftLog(logger))
    /// ```
    public static func swiftLog(_ logger: Logger, redactor: Redactor = Redactor()) -> WPLogger {
        WPLogger(label: "", level: BridgeLogHandler.level(for: logger.logLevel), sink: SwiftLogSink(logger: logger),
                 redactor: redactor)
    }
}
