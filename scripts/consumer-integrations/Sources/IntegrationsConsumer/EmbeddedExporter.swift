#if os(Linux)
import Logging
import ServiceLifecycle
import WPConfig
import WPLogging
import WPExporter
import WPServiceLifecycle

/// The whole WinPower exporter embedded as a Service, as docs/embedding.md shows: collecting
/// only (the service would serve `exporter.router` itself), stopped by the group.
public struct EmbeddedExporter: Sendable {
    public let exporter: Exporter<ContinuousClock>
    public let group: ServiceGroup

    /// Builds the exporter for `configuration` (which throws every configuration problem,
    /// named by key) and a group running it.
    public init(configuration: ExporterConfiguration, log: WPLogger) throws {
        exporter = try Exporter(configuration: configuration, logger: log)
        group = ServiceGroup(configuration: .init(services: [ExporterService(exporter, listener: .none)],
                                                  logger: Logger(label: "group", factory: { _ in SwiftLogNoOpLogHandler() })))
    }
}
#endif
