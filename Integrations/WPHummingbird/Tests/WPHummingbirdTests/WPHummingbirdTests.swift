#if os(Linux)
import FoundationEssentials
import Hummingbird
import Testing
import WPConfig
import WPExporter
import WPExporterTesting
import WPHummingbird
import WPLogging
import WPMetrics
import WPServer
import WPServerMetrics
import WPSimulator

/// The exporter's endpoints on a Hummingbird router, over a real loopback socket: negotiation,
/// gzip, HEAD, and WPServer's answers passed through.
@Suite(.timeLimit(.minutes(3))) struct WPHummingbirdTests {
    /// A simulated WinPower, an exporter collecting from it (energy in memory), and a
    /// Hummingbird app on 127.0.0.1 port 0 with the exporter and a WPRouter mounted.
    ///
    /// - Parameter oneMetrics: the service's own registry (with `shop_orders_total` at 1) serves
    ///   `/metrics` with the exporter's families registered in it; the other endpoints are
    ///   mounted without a metrics path.
    static func serving(oneMetrics: Bool = false, _ body: @Sendable (Int) async throws -> Void) async throws {
        let simulator = SimulatorServer(simulator: WinPowerSimulator())
        let winPower = try await simulator.start().port
        var configuration = ExporterConfiguration()
        configuration.winPower.baseURL = "http://127.0.0.1:\(winPower)"
        configuration.winPower.username = "admin"
        configuration.winPower.password = Secret("admin")
        let (collected, collection) = AsyncStream<Void>.makeStream()
        var options = Exporter.Options(clock: ContinuousClock(), logger: .disabled, afterCollection: { collection.yield() })
        options.energyStorage = .memory
        let exporter = try Exporter(configuration: configuration, options: options)

        let router = Router()
        if oneMetrics {
            let registry = MetricRegistry()
            try registry.counter(name: "shop_orders_total", help: "Orders taken.").increment()
            try exporter.register(in: registry)
            router.mount(MetricsHandler(registry: registry), at: [("/metrics", [.get, .head])])
            router.mount(exporter.router, at: WPHandlerRoutes.exporterPaths(metricsPath: nil))
        } else {
            router.mount(exporter.router, at: WPHandlerRoutes.exporterPaths())
        }
        var own = WPRouter()
        own.get("/ping") { _ in WPHTTPResponse.text("pong\n") }
        router.mount(own, at: [("/ping", [.get, .head, .post])], maxRequestBodyBytes: 16)
        let (ports, portReady) = AsyncStream<Int>.makeStream()
        let app = Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)),
                              onServerRunning: { channel in portReady.yield(channel.localAddress?.port ?? -1) })
        let (stopped, stop) = AsyncStream<Void>.makeStream()
        let collecting = Task { try await exporter.runCollection(until: { for await _ in stopped { return } }) }
        let serving = Task { try await app.runService() }
        defer {
            stop.finish()
            serving.cancel()
        }
        var iterator = collected.makeAsyncIterator()
        _ = await iterator.next()
        var portIterator = ports.makeAsyncIterator()
        let port = try #require(await portIterator.next())
        try await body(port)
        stop.finish()
        try await collecting.value
        serving.cancel()
        await simulator.stop()
    }

    static func get(_ port: Int, _ path: String, method: String = "GET", headers: [(name: String, value: String)] = [], body: [UInt8] = [])
        async throws -> LoopbackResponse {
        try await LoopbackClient().send(method, url: "http://127.0.0.1:\(port)\(path)", headers: headers, body: body)
    }

    /// One `/metrics` for the service and the exporter: the service's family and the exporter's
    /// on the same page, once each; the exporter's other endpoints beside it.
    @Test func oneMetricsPathServesTheServicesFamiliesAndTheExporters() async throws {
        try await Self.serving(oneMetrics: true) { port in
            let page = try await Self.get(port, "/metrics")
            #expect(page.status == 200)
            let text = String(decoding: page.body, as: UTF8.self)
            #expect(text.contains("shop_orders_total 1\n"), "\(text.prefix(300))")
            #expect(text.contains("winpower_exporter_up 1\n"))
            #expect(text.components(separatedBy: "# TYPE winpower_exporter_up ").count == 2, "the exporter's families once")
            #expect(try await Self.get(port, "/health").status == 200)
            #expect(try await Self.get(port, "/-/ready").status == 200)
        }
    }

    @Test func theExportersEndpointsNegotiateAndCompressAsTheListenerDoes() async throws {
        try await Self.serving { port in
            let plain = try await Self.get(port, "/metrics")
            #expect(plain.status == 200)
            let text = String(decoding: plain.body, as: UTF8.self)
            #expect(text.contains("winpower_exporter_up 1"), "\(text.prefix(300))")
            #expect(plain.headers.first { $0.name.lowercased() == "content-type" }?.value.hasPrefix("text/plain") == true)

            let zipped = try await Self.get(port, "/metrics", headers: [("Accept-Encoding", "gzip")])
            #expect(zipped.headers.first { $0.name.lowercased() == "content-encoding" }?.value == "gzip")
            // One Vary field naming Accept (the negotiation) and Accept-Encoding (gzip) once each.
            let vary = zipped.headers.filter { $0.name.lowercased() == "vary" }.map(\.value)
            #expect(vary.count == 1 && vary.joined().split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.sorted()
                        == ["Accept", "Accept-Encoding"], "\(vary)")
            let unzipped = try zipped.decompressedBody()
            let families = { (body: String) in body.split(separator: "\n").filter { $0.hasPrefix("# TYPE winpower_device") } }
            #expect(families(String(decoding: unzipped, as: UTF8.self)) == families(text))
            #expect(zipped.body.count < plain.body.count / 3)

            let open = try await Self.get(port, "/metrics", headers: [("Accept", "application/openmetrics-text; version=1.0.0")])
            #expect(open.headers.first { $0.name.lowercased() == "content-type" }?.value.hasPrefix("application/openmetrics-text") == true)
            #expect(String(decoding: open.body, as: UTF8.self).hasSuffix("# EOF\n"))

            let head = try await Self.get(port, "/metrics", method: "HEAD")
            #expect(head.status == 200 && head.body.isEmpty)

            let health = try await Self.get(port, "/health")
            #expect(health.status == 200 && String(decoding: health.body, as: UTF8.self).contains("\"status\""))
        }
    }

    @Test func wpServerAnswersPassThroughAndBodiesAreBounded() async throws {
        try await Self.serving { port in
            let pong = try await Self.get(port, "/ping")
            #expect(pong.status == 200 && String(decoding: pong.body, as: UTF8.self) == "pong\n")
            let wrongMethod = try await Self.get(port, "/ping", method: "POST", body: Array("x".utf8))
            #expect(wrongMethod.status == 405, "WPRouter's answer for a known path with another method")
            let tooLarge = try await Self.get(port, "/ping", method: "POST", body: [UInt8](repeating: 65, count: 1_000))
            #expect(tooLarge.status == 413)
            let unknown = try await Self.get(port, "/not-mounted")
            #expect(unknown.status == 404)
        }
    }
}
#endif
