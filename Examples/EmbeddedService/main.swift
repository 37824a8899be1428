// A service written from docs/embedding.md alone: instruments with labels, a collector reading
// an actor's state, /metrics served by WPServer, an optional Pushgateway push, structured logs,
// and a graceful stop on SIGTERM or Ctrl-C. Linux only (WPServer).
//
//   swift run EmbeddedService [--port 9464] [--push http://127.0.0.1:9091]
#if os(Linux)
import FoundationEssentials
import WPLogging
import WPMetrics
import WPProcess
import WPPushgateway
import WPScheduler
import WPServer
import WPServerMetrics

/// The service's state, owned by an actor; it publishes a snapshot that scrapes read without
/// awaiting it (a custom collector: one gauge series per item).
actor Inventory {
    private var stock: [String: Int]
    nonisolated let metrics: SnapshotCollector<[String: Int]>

    init(stock: [String: Int]) throws {
        self.stock = stock
        let items = MetricDescriptor(name: "shop_stock_items", help: "Items in stock.", type: .gauge, labelNames: ["item"])
        metrics = try SnapshotCollector(descriptors: [items], initial: stock) { stock in
            var family = try items.makeFamily(capacity: stock.count)
            for (item, count) in stock { try family.append(labelValues: [item], value: Double(count)) }
            return [family]
        }
    }

    func take(_ item: String) -> Bool {
        guard let count = stock[item], count > 0 else { return false }
        stock[item] = count - 1
        metrics.publish(stock)
        return true
    }
}

let arguments = CommandLine.arguments
func option(_ name: String) -> String? {
    arguments.firstIndex(of: name).flatMap { arguments.indices.contains($0 + 1) ? arguments[$0 + 1] : nil }
}

let log = WPLogger(label: "shop", sink: StreamSink.standardOutput(encoder: JSONLogEncoder()))
let registry = MetricRegistry()
let inventory = try Inventory(stock: ["apples": 12, "pears": 3])
let orders = try registry.counterVec(name: "shop_orders_total", help: "Orders, by item and outcome.",
                                     labelNames: ["item", "outcome"])
let open = try registry.gauge(name: "shop_orders_in_progress", help: "Orders being handled.")
let latency = try registry.histogram(name: "shop_order_duration_seconds", help: "Time per order.", unit: "seconds")
let sizes = try registry.summaryVec(name: "shop_order_bytes", help: "Order body sizes.", unit: "bytes",
                                    labelNames: ["item"]).checkedLabels("item")   // labels(_:) without try
try registry.register(inventory.metrics)
try registry.gaugeFunc(name: "shop_start_time_seconds", help: "Start time.") { 1_800_000_000 }

var router = WPRouter(observer: try RequestMetrics(namespace: "shop", registry: registry))
router.get("/metrics") { request in
    let format = ExpositionFormat.negotiate(accept: request.headers["Accept"])
    return WPHTTPResponse(status: 200, headers: ["Content-Type": format.contentType],
                        body: registry.render(format: format))
}
router.post("/order") { request in
    let item = request.queryItems.first { $0.name == "item" }?.value ?? "apples"
    open.increment()
    defer { open.decrement() }
    let started = ContinuousClock.now
    let taken = await inventory.take(item)
    try orders.labels(["item": item, "outcome": taken ? "ok" : "sold_out"]).increment()
    sizes.labels(item).observe(Double(request.body.count))
    latency.observe(ContinuousClock.now - started)
    log.info("order", ["item": .string(item), "ok": .bool(taken)])
    return .text(taken ? "ok\n" : "sold out\n", status: taken ? 200 : 409)
}

let port = option("--port").flatMap { Int($0) } ?? 9464
let server = WPHTTPServer(configuration: .init(host: "127.0.0.1", port: port), handler: router, logger: log)
let pusher = try option("--push").flatMap(URL.init(string:)).map {
    try PushgatewayClient(configuration: .init(url: $0, job: "shop"))
}

log.info("listening", ["port": .int(port)])
let signal = try await runUntilTerminated {
    try await withThrowingTaskGroup(of: Void.self) { group in
        group.addTask { try await server.run() }
        if let pusher {
            group.addTask {
                let pushes = TickScheduler(configuration: .init(interval: .seconds(15), workName: "push"),
                                       clock: ContinuousClock(), logger: log) { _ in
                    do { try await pusher.push(registry) } catch { log.warn("push failed", ["error": "\(error)"]) }
                }
                await pushes.run()
            }
        }
        try await group.waitForAll()
    }
}
log.info("stopped", ["signal": .int(Int(signal ?? 0))])
#else
print("EmbeddedService needs WPServer, which is Linux-only.")
#endif
