// A Hummingbird service with a WPMetrics `/metrics`: its own counter, and Hummingbird's request
// metrics (MetricsMiddleware, swift-metrics) in the same registry through WPMetricsBridge.
//
//   HummingbirdService [--port N]     (default 8080; 0 picks a free port)
//
// Prints `listening on 127.0.0.1:<port>` once the server accepts connections; stops on
// SIGTERM or SIGINT (Hummingbird's graceful shutdown).
import Hummingbird
import Metrics
import NIOCore
import WPMetrics
import WPMetricsBridge

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

let arguments = CommandLine.arguments
let port = arguments.firstIndex(of: "--port").flatMap { arguments.indices.contains($0 + 1) ? Int(arguments[$0 + 1]) : nil } ?? 8080

let registry = MetricRegistry()
MetricsSystem.bootstrap(RegistryMetricsFactory(registry: registry))
let orders = try registry.counter(name: "shop_orders_total", help: "Orders taken.")

let router = Router()
router.middlewares.add(MetricsMiddleware())
router.post("/order") { _, _ -> String in
    orders.increment()
    return "ok\n"
}
router.get("/metrics") { request, _ -> Response in
    let format = ExpositionFormat.negotiate(accept: request.headers[.accept])
    return Response(status: .ok, headers: [.contentType: format.contentType],
                    body: ResponseBody(byteBuffer: ByteBuffer(bytes: registry.render(format: format))))
}

let app = Application(
    router: router,
    configuration: .init(address: .hostname("127.0.0.1", port: port)),
    onServerRunning: { channel in
        // Straight to the descriptor: stdout is a pipe here, and print() would buffer the line.
        let line = Array("listening on 127.0.0.1:\(channel.localAddress?.port ?? -1)\n".utf8)
        _ = line.withUnsafeBytes { write(1, $0.baseAddress, $0.count) }
    })
try await app.runService()
