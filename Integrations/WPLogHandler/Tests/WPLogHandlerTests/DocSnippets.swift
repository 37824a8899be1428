// The Swift examples of README.md and docs/embedding.md §7 (the logging half), as written there,
// wrapped in functions that are compiled but never called (bootstrapping is once per process).
import Logging
import WPLogging
import WPLogHandler

func readmeBootstrapSnippet() {
    let base = WPLogger(label: "service", sink: StreamSink.standardError(encoder: JSONLogEncoder()))
    LoggingSystem.bootstrap { label in BridgeLogHandler(label: label, logger: base) }

    let logger = Logger(label: "nio")
    logger.info("connected", metadata: ["peer": ["host": "db", "port": "5432"]])
    // {"time":"…","level":"info","logger":"nio","message":"connected","peer.host":"db","peer.port":"5432","source":"…"}
}

func embeddingSnippet() {
    let log = WPLogger(label: "service", sink: StreamSink.standardError(encoder: JSONLogEncoder()))
    LoggingSystem.bootstrap { label in BridgeLogHandler(label: label, logger: log) }
}

func readmeSwiftLogSinkSnippet() {
    let log = WPLogger(label: "", sink: SwiftLogSink(labelPrefix: "winpower"))
    log.child(label: "collector").info("collected")   // swift-log logger "winpower.collector"
    // the exporter: try Exporter(configuration: configuration, logger: log)
}

#if os(Linux)
import WPConfig
import WPExporter

func readmeSwiftLogLoggerSnippet(configuration: ExporterConfiguration, logger: Logger) throws -> Exporter<ContinuousClock> {
    let exporter = try Exporter(configuration: configuration, logger: .swiftLog(logger))
    return exporter
}
#endif
