// The Swift examples of docs/embedding.md ("Running under swift-service-lifecycle") and of
// README.md, as written there, compiled so they cannot rot (DocSnippetsSyncTests in the root
// package checks that they stay equal to the docs). Never run.
#if os(Linux)
import Logging
import ServiceLifecycle
import WPConfig
import WPExporter
import WPLogging
import WPScheduler
import WPServer
import WPServiceLifecycle

/// Something a scheduled run refreshes.
protocol Cache: Sendable {
    func refresh() async
}

func serviceGroupExample(router: WPRouter, log: WPLogger, logger: Logger, cache: some Cache) async throws {
    let server = WPHTTPServer(configuration: .init(host: "::", port: 9464), handler: router, logger: log)
    let refresh = TickScheduler(configuration: .init(interval: .seconds(30), workName: "refresh"),
                            clock: ContinuousClock(), logger: log) { _ in await cache.refresh() }
    let group = ServiceGroup(configuration: .init(
        services: [HTTPServerService(server), SchedulerService(refresh)],
        gracefulShutdownSignals: [.sigterm, .sigint], logger: logger))
    try await group.run()
}

func exporterServiceExample(configuration: ExporterConfiguration, log: WPLogger, logger: Logger) async throws {
    let exporter = try Exporter(configuration: configuration, options: .init(logger: log))
    let group = ServiceGroup(configuration: .init(
        services: [ExporterService(exporter, listener: .own(onListening: { print("metrics on \($0)") }))],
        gracefulShutdownSignals: [.sigterm], cancellationSignals: [.sigterm, .sigint], logger: logger))
    try await group.run()
}
#endif
