// A Hummingbird 2 service embedding the whole WinPower exporter: its endpoints mounted on the
// service's router (WPHummingbird), its families in the service's own registry, collecting
// while the service runs. Hummingbird, swift-log, swift-metrics and wpexporter's libraries are
// imported into this one file and every type is named unqualified: swift-log's `Logger` and
// WPLogging's `WPLogger`, swift-metrics' `Counter` and WPMetrics' `WPCounter`, Hummingbird's
// `Router` and WPServer's `WPRouter`.
//
//   ExporterOnHummingbird --config config.yaml [--port N]   (port 0 picks a free one)
//
// Prints `listening on 127.0.0.1:<port>` once the server accepts connections; stops on SIGTERM
// or SIGINT (Hummingbird's graceful shutdown), then the exporter saves its totals.
#if os(Linux)
import FoundationEssentials
import Glibc
import Hummingbird
import Logging
import Metrics
import WPConfig
import WPExporter
import WPHummingbird
import WPLogging
import WPMetrics
import WPServer

let arguments = CommandLine.arguments
func argument(_ flag: String) -> String? {
    arguments.firstIndex(of: flag).flatMap { arguments.indices.contains($0 + 1) ? arguments[$0 + 1] : nil }
}
let port = argument("--port").flatMap(Int.init) ?? 8080

// The service's logging (swift-log) and the exporter's (WPLogging), side by side.
let logger = Logger(label: "shop")
let log = WPLogger(label: "winpower", sink: StreamSink.standardError(encoder: JSONLogEncoder()))

let loaded = try ConfigurationLoader.load(ConfigurationInputs(configPath: argument("--config"),
                                                              environment: ProcessInfo.processInfo.environment, files: .system,
                                                              schema: Exporter<ContinuousClock>.configurationSchema()))
let exporter = try Exporter(configuration: loaded.configuration, logger: log)

// One registry: the service's own instrument and every WinPower family.
let registry = MetricRegistry()
try exporter.register(in: registry)
let hellos: WPCounter = try registry.counter(name: "shop_hellos_total", help: "Hellos said.")
let served = Counter(label: "shop.hello.requests")   // swift-metrics, to the service's own backend

let router = Router()
router.get("/hello") { _, _ -> String in
    hellos.increment()
    served.increment()
    return "hello\n"
}
router.get("/shop-metrics") { request, _ -> Response in
    let format = ExpositionFormat.negotiate(accept: request.headers[.accept])
    return Response(status: .ok, headers: [.contentType: format.contentType],
                    body: ResponseBody(byteBuffer: ByteBuffer(bytes: registry.render(format: format))))
}
// The exporter's endpoints (/metrics, /health, /-/reload, …) and a WPServer route of the service's.
router.mount(exporter.router, at: WPHandlerRoutes.exporterPaths(metricsPath: loaded.configuration.server.metricsPath))
var pings = WPRouter()
pings.get("/ping") { _ in WPHTTPResponse.text("pong\n") }
router.mount(pings, at: [("/ping", [.get, .head])])

let app = Application(
    router: router,
    configuration: .init(address: .hostname("127.0.0.1", port: port)),
    onServerRunning: { channel in
        // Straight to the descriptor: stdout is a pipe under test, and print() would buffer.
        let line = Array("listening on 127.0.0.1:\(channel.localAddress?.port ?? -1)\n".utf8)
        _ = line.withUnsafeBytes { write(1, $0.baseAddress, $0.count) }
    },
    logger: logger)

let (stopped, stop) = AsyncStream<Void>.makeStream()
try await withThrowingTaskGroup(of: Void.self) { group in
    group.addTask {
        try await exporter.runCollection(until: { for await _ in stopped { return } })
    }
    group.addTask {
        defer { stop.finish() }
        try await app.runService()
    }
    try await group.waitForAll()
}
#else
print("ExporterOnHummingbird runs on Linux (the exporter's libraries are Linux-only)")
#endif
