#if os(Linux)
import ConnectionPool
import FoundationEssentials
import Metrics
import Testing
import WPExporterTesting
import WPLogging
import WPMetrics
import WPMetricsBridge
import WPServer

/// The example's shape, end to end: a library that only knows swift-metrics, the process-wide
/// swift-metrics backend bootstrapped with a WPMetrics registry, and that registry served by
/// WPServer on a loopback socket (port 0).
@Suite(.timeLimit(.minutes(3))) struct ExampleLoopbackTests {
    /// `MetricsSystem.bootstrap` may run once per process; this suite is the only one using it.
    static let registry: MetricRegistry = {
        let registry = MetricRegistry()
        MetricsSystem.bootstrap(RegistryMetricsFactory(registry: registry))
        return registry
    }()

    @Test func aSwiftMetricsLibraryAppearsOnWPServersMetricsPage() async throws {
        let registry = Self.registry
        let pool = ConnectionPool(name: "main")  // the bootstrapped factory
        pool.connect(waited: .milliseconds(20))
        pool.connect(waited: .milliseconds(2))
        pool.disconnect()

        var router = WPRouter()
        router.get("/metrics") { request in
            let format = ExpositionFormat.negotiate(accept: request.headers["Accept"])
            return WPHTTPResponse(status: 200, headers: ["Content-Type": format.contentType],
                                body: registry.render(format: format))
        }
        let server = WPHTTPServer(configuration: .init(host: "127.0.0.1", port: 0), handler: router,
                                logger: .disabled)
        let running = Task { try await server.run() }
        defer { running.cancel() }
        let address = try await server.waitUntilListening()
        let response = try await LoopbackClient().send(url: "http://127.0.0.1:\(address.port)/metrics")
        let body = response.text

        #expect(response.status == 200)
        #expect(body.contains("pool_connections_opened_total{pool=\"main\"} 2"))
        #expect(body.contains("pool_connections_open{pool=\"main\"} 1"))
        #expect(body.contains("pool_wait_seconds_count{pool=\"main\"} 2"))
        #expect(body.contains("pool_wait_seconds_bucket{pool=\"main\",le=\"0.005\"} 1"))
        running.cancel()
        _ = await running.result
    }
}
#endif
