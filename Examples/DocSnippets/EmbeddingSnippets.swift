// The examples of docs/embedding.md, as written there (only wrapped in functions), so they
// cannot rot: `swift build` compiles this target. Nothing here runs.
import FoundationEssentials
import WPMetrics
import WPPushgateway
#if os(Linux)
import WPServer
import WPServerMetrics
#endif

// §2. Create a registry and instruments once
struct ServiceMetrics {
    let jobs: CounterVec
    let inFlight: WPGauge
    let duration: WPHistogram
    let registry: MetricRegistry

    init() throws {
        let registry = MetricRegistry()
        jobs = try registry.counterVec(name: "worker_jobs_total", help: "Jobs processed, by outcome.",
                                       labelNames: ["outcome"])
        inFlight = try registry.gauge(name: "worker_jobs_in_flight", help: "Jobs being processed right now.")
        duration = try registry.histogram(name: "worker_job_duration_seconds", help: "Time spent per job.",
                                          unit: "seconds",
                                          buckets: try Buckets.exponential(start: 0.001, factor: 4, count: 8))
        try registry.register(try Info.build(namespace: "worker", version: "1.0.0", revision: "abc123"))
        try registry.register(ProcessCollector())      // process_* from /proc, skipped where absent
        self.registry = registry
    }
}

// §2. Literal names, no try
struct LiteralMetrics {
    let jobs: CounterVec
    let inFlight: WPGauge
    let duration: WPHistogram

    init(registry: MetricRegistry) {
        jobs = registry.counterVec("worker_jobs_total", help: "Jobs processed, by outcome.", labelNames: ["outcome"])
        inFlight = registry.gauge("worker_jobs_in_flight", help: "Jobs being processed right now.")
        duration = registry.histogram("worker_job_duration_seconds", help: "Time spent per job.", unit: "seconds")
    }
}

// §3. Update from anywhere
func updateFromAnywhere(_ metrics: ServiceMetrics) throws {
    metrics.inFlight.increment()
    defer { metrics.inFlight.decrement() }
    try metrics.jobs.labels("success").increment()
    metrics.duration.observe(0.042)
}

// §4. Serve /metrics
struct MetricsEndpoint {
    let metrics: ServiceMetrics

    func metricsResponse(accept: String?) -> (contentType: String, body: [UInt8]) {
        let format = ExpositionFormat.negotiate(accept: accept)
        return (format.contentType, metrics.registry.render(format: format))
    }
}

#if os(Linux)
// §4. Serve /metrics with WPServer
func serveWithWPServer(_ metrics: ServiceMetrics) -> WPRouter {
    var router = WPRouter()
    router.addMetrics(registry: metrics.registry)                 // GET /metrics; MetricsHandler(registry:) is the handler
    return router
}
#endif

// §5. Values computed elsewhere: collectors
final class JobQueue: Sendable {
    var depths: [String: Int] { ["default": 0] }
}

struct QueueCollector: Collector {
    let queue: JobQueue
    var descriptors: [MetricDescriptor] {
        [MetricDescriptor(name: "worker_queue_depth", help: "Jobs waiting.", type: .gauge, labelNames: ["queue"])]
    }
    func collect() -> [MetricFamily] {
        guard var family = try? descriptors[0].makeFamily() else { return [] }
        for (name, depth) in queue.depths { try? family.append(labelValues: [name], value: Double(depth)) }
        return [family]
    }
}

func registerCollector(_ registry: MetricRegistry, queue: JobQueue) throws {
    try registry.register(QueueCollector(queue: queue))
}

// §6. Batch jobs: push instead
func push(_ registry: MetricRegistry, secret: String) async throws {
    let client = try PushgatewayClient(configuration: .init(
        url: URL(string: "http://pushgateway:9091")!, job: "nightly_backup",
        grouping: ["instance": "db1"], username: "pusher", password: secret))
    try await client.push(registry)       // PUT replaces the group; pushAdd(_:) POSTs, delete() removes it
}

// Testing code that uses WPMetrics
func renderedJobs(_ registry: MetricRegistry) -> String {
    let rendered = String(decoding: ExpositionEncoder(format: .text).encode(
        registry.collect().filter { $0.name == "worker_jobs_total" }), as: UTF8.self)
    return rendered
}

// The ExpositionFormat doc comment.
func negotiated(_ registry: MetricRegistry, acceptHeader: String?) -> (String, [UInt8]) {
    let format = ExpositionFormat.negotiate(accept: acceptHeader)   // the scrape's Accept, or nil
    let contentType = format.contentType
    let body = registry.render(format: format)
    return (contentType, body)
}
