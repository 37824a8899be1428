// A service whose /metrics page (WPServer, WPMetrics) shows the metrics of a library that only
// knows swift-metrics (ConnectionPool). Run: swift run MetricsBridgeExample [--port N]
// then curl http://127.0.0.1:9465/metrics. Linux only (WPServer).
#if os(Linux)
import ConnectionPool
import Metrics
import WPLogging
import WPMetrics
import WPMetricsBridge
import WPServer

let log = WPLogger(label: "example", sink: StreamSink.standardError(encoder: JSONLogEncoder()))
let registry = MetricRegistry()
var configuration = RegistryMetricsFactory.Configuration()
configuration.onProblem = { problem in log.warn("metric dropped", ["problem": .string(problem.description)]) }
MetricsSystem.bootstrap(RegistryMetricsFactory(registry: registry, configuration: configuration))

// The library creates its swift-metrics instruments from the bootstrapped factory.
let pool = ConnectionPool(name: "main")
pool.connect(waited: .milliseconds(3))

var router = WPRouter()
router.get("/metrics") { request in
    let format = ExpositionFormat.negotiate(accept: request.headers["Accept"])
    return WPHTTPResponse(status: 200, headers: ["Content-Type": format.contentType],
                        body: registry.render(format: format))
}
router.post("/connect") { _ in
    pool.connect(waited: .zero)
    return .text("connected\n")
}

let arguments = CommandLine.arguments
let port = arguments.firstIndex(of: "--port").flatMap { arguments.indices.contains($0 + 1) ? Int(arguments[$0 + 1]) : nil } ?? 9465
let server = WPHTTPServer(configuration: .init(host: "127.0.0.1", port: port), handler: router, logger: log)
log.info("listening", ["port": .int(port)])
try await server.run()
#else
print("MetricsBridgeExample needs WPServer, which is Linux-only.")
#endif
