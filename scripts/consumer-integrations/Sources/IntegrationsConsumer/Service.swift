import Logging
import Metrics
import ServiceLifecycle
import WPLogHandler
import WPLogging
import WPMetrics
import WPMetricsBridge
import WPScheduler
import WPServiceLifecycle
#if os(Linux)
import WPServer
#endif

/// Routes swift-metrics into `registry` and swift-log through `log`. Once per process.
public func bootstrapIntegrations(registry: MetricRegistry, log: WPLogger) {
    MetricsSystem.bootstrap(RegistryMetricsFactory(registry: registry))
    LoggingSystem.bootstrap { label in BridgeLogHandler(label: label, logger: log) }
}

/// A job measured and logged only through swift-metrics and swift-log, as a library would.
public func runJob() {
    let duration = Metrics.Timer(label: "shop.job")
    duration.recordMilliseconds(2)
    duration.recordMilliseconds(17)
    Logger(label: "shop.job").info("job done", metadata: ["password": "hunter2"])
}

#if os(Linux)
/// `/metrics` on WPServer and a scheduled job, in one ServiceGroup stopped by SIGTERM.
public struct ShopService: Sendable {
    public let server: WPHTTPServer
    public let scheduler: TickScheduler<ContinuousClock>
    public let group: ServiceGroup

    public init(registry: MetricRegistry, log: WPLogger) {
        var router = WPRouter()
        router.get("/metrics") { request in
            Counter(label: "shop.scrapes").increment()
            let format = ExpositionFormat.negotiate(accept: request.headers["Accept"])
            return WPHTTPResponse(status: 200, headers: ["Content-Type": format.contentType],
                                body: registry.render(format: format))
        }
        let server = WPHTTPServer(configuration: .init(host: "127.0.0.1", port: 0), handler: router, logger: log)
        let scheduler = TickScheduler(configuration: .init(interval: .seconds(3600), workName: "job"),
                                  clock: ContinuousClock(), logger: log) { _ in runJob() }
        self.server = server
        self.scheduler = scheduler
        group = ServiceGroup(configuration: .init(
            services: [HTTPServerService(server), SchedulerService(scheduler)],
            gracefulShutdownSignals: [.sigterm], logger: Logger(label: "shop.group")))
    }
}
#endif
