// Serves, on 127.0.0.1 and an ephemeral port, what an embedding service typically does:
//
//   GET /metrics   MetricsHandler over a registry of 10,000 gauge series (10 families × 1,000
//                  label sets of 3 labels), rendered on every request
//   GET /ping      a constant 3-byte body from a handler closure (WPRouter.get's default)
//   GET /ping-prerendered
//                  the same closure declared pre-rendered (WPRouter.get's `preRendered: true`,
//                  which lets it run on the event loop) where the revision has that parameter:
//                  built with -DPRE_RENDERED_ROUTES; without it, the same as /ping
//
// with WPHTTPServer.Configuration's defaults, as an embedder would. Prints "listening PORT" once
// it listens.
//
//   EmbedderLatency [SERIES]   # default 10000; SERIES is rounded down to a multiple of 1,000
import Glibc
import WPMetrics
import WPServer
import WPServerMetrics

let series = CommandLine.arguments.dropFirst().first.flatMap { Int($0) } ?? 10_000
let registry = MetricRegistry()
for family in 0..<max(1, series / 1_000) {
    let vec = try registry.gaugeVec(name: "embedder_reading_\(family)", help: "A reading of every device.",
                                    labelNames: ["id", "name", "type"])
    for device in 0..<1_000 {
        try vec.labels(["\(1000 + device)", "UPS Rack \(device / 10) Slot \(device % 10)", "ups"])
            .set(Double(device * 7 + family))
    }
}

var router = WPRouter()
router.addMetrics(registry: registry)
router.get("/ping") { _ in .text("ok\n") }
#if PRE_RENDERED_ROUTES
router.get("/ping-prerendered", preRendered: true) { _ in .text("ok\n") }
#else
router.get("/ping-prerendered") { _ in .text("ok\n") }
#endif

#if WPEXPORTER_OLD_NAMES
typealias WPHTTPServer = HTTPServer
#endif
let server = WPHTTPServer(configuration: WPHTTPServer.Configuration(host: "127.0.0.1", port: 0), handler: router,
                        logger: .disabled)
let serving = Task { try await server.run() }
let address = try await server.waitUntilListening()
print("listening \(address.port)")
fflush(nil)
try await serving.value
