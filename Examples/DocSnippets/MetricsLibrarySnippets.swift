// The examples of docs/metrics-library.md and of the SnapshotCollector and CheckedLabels doc
// comments, as written there (only wrapped in functions). Nothing here runs.
import WPMetrics

/// What the exporter's collection cycle reads (docs/metrics-library.md, per-cycle snapshot).
struct SnippetDevice {
    let id: String
    let name: String
    let type: String
    let loadTotalWatt: Double?
}

// Building a per-cycle snapshot
func perCycleSnapshot(devices: [SnippetDevice]) throws -> (text: [UInt8], openMetrics: [UInt8]) {
    // Once per cycle, off the scrape path:
    var families: [MetricFamily] = []
    var load = try MetricFamily(name: "winpower_device_load_total_watt", help: "Active power.", type: .gauge,
                                labelNames: ["device_id", "device_name", "device_type"], capacity: devices.count)
    for device in devices {
        guard let watts = device.loadTotalWatt else { continue }         // missing readings are omitted
        try load.append(labelValues: [device.id, device.name, device.type], value: watts)
    }
    load.sortSamples()                                                  // deterministic series order
    families.append(load)
    // ... one family per metric; energy counters use type .counter and SampleValue.counter
    families.sort { $0.name < $1.name }

    var text: [UInt8] = []                                              // keep across cycles
    text.removeAll(keepingCapacity: true)
    ExpositionEncoder(format: .text).encode(families, into: &text, terminated: false)
    var openMetrics: [UInt8] = []
    ExpositionEncoder(format: .openMetrics).encode(families, into: &openMetrics, terminated: false)
    // publish (text, openMetrics) as one immutable snapshot; see below for per-scrape additions
    return (text, openMetrics)
}

// Literal names without try (also the doc comment of MetricRegistry's literal factories)
func literalNames() {
    let registry = MetricRegistry()
    let requests = registry.counterVec("http_requests_total", help: "Requests.", labelNames: ["method", "code"])
    let inFlight = registry.gauge("http_requests_in_flight", help: "Requests in progress.")
    _ = (requests, inFlight)
}

// State owned by an actor: SnapshotCollector (also its doc comment)
actor Inventory {
    private var stock: [String: Int] = [:]
    nonisolated let metrics: SnapshotCollector<[String: Int]>

    init(registry: MetricRegistry) throws {
        let items = MetricDescriptor(name: "shop_stock_items", help: "Items in stock.", type: .gauge,
                                     labelNames: ["item"])
        metrics = try SnapshotCollector(descriptors: [items], initial: [:]) { stock in
            var family = try items.makeFamily(capacity: stock.count)
            for (item, count) in stock { try family.append(labelValues: [item], value: Double(count)) }
            return [family]
        }
        try registry.register(metrics)
    }

    func restock(_ item: String, _ count: Int) {
        stock[item, default: 0] += count
        metrics.publish(stock)                     // scrapes see this from now on
    }

    var current: [String: Int] { stock }
}

func pollInventory(registry: MetricRegistry) throws {
    let inventory = try Inventory(registry: registry)
    let refresher = Task { await inventory.metrics.refresh(every: .seconds(10)) { await inventory.current } }
    // ... on shutdown:
    refresher.cancel()
}

// Curried vectors, then updates without try
func curriedVectors(registry: MetricRegistry) throws {
    let requests = try registry.counterVec(name: "http_requests_total", help: "Requests.",
                                           labelNames: ["handler", "method", "code"])
    let metricsRequests = try requests.curry(["handler": "/metrics"])
    try metricsRequests.labels("GET", "200").increment()           // handler="/metrics",method="GET",code="200"
    try metricsRequests.labels(["code": "304", "method": "GET"]).increment()
    let getMetrics = try metricsRequests.curry(["method": "GET"])   // remainingLabelNames == ["code"]

    let byMethodAndCode = try metricsRequests.checkedLabels("method", "code")   // throws here, once
    byMethodAndCode.labels("GET", "200").increment()                            // no try
    let byCode = try getMetrics.checkedLabels("code")
    byCode.labels("500").increment()
}

// The CheckedLabels doc comment
func checkedLabelsDocComment(registry: MetricRegistry) throws {
    let requests = try registry.counterVec(name: "http_requests_total", help: "Requests.",
                                           labelNames: ["method", "code"])
        .checkedLabels("method", "code")                      // throws here, once, if the names are wrong
    requests.labels("GET", "200").increment()                 // no try
}
