// InstrumentedService — a small Swift service instrumenting itself with WPMetrics alone.
//
//   swift run InstrumentedService                      # process some jobs, print text format
//                                                      # (the Content-Type goes to stderr)
//   swift run InstrumentedService --accept 'application/openmetrics-text;version=1.0.0'
//   swift run InstrumentedService --push http://127.0.0.1:9091
//
// See docs/embedding.md for a walk-through.

import Foundation
import WPMetrics
import WPPushgateway

/// The service's instruments, created once and passed to the code that updates them.
struct ServiceMetrics {
    let jobs: CounterVec
    let inFlight: WPGauge
    let duration: WPHistogram
    let payload: Summary
    let registry: MetricRegistry

    init() throws {
        let registry = MetricRegistry()
        jobs = try registry.counterVec(name: "worker_jobs_total", help: "Jobs processed, by outcome.",
                                       labelNames: ["outcome"])
        inFlight = try registry.gauge(name: "worker_jobs_in_flight", help: "Jobs being processed right now.")
        duration = try registry.histogram(name: "worker_job_duration_seconds", help: "Time spent per job.",
                                          unit: "seconds", buckets: try Buckets.exponential(start: 0.001, factor: 4, count: 8))
        payload = try registry.summary(name: "worker_payload_bytes", help: "Size of job payloads.", unit: "bytes")
        try registry.register(try Info.build(namespace: "worker", version: "1.0.0", revision: "example"))
        try registry.register(ProcessCollector())
        self.registry = registry
    }

    /// What a `/metrics` endpoint returns: negotiated format, content type and body.
    func scrape(accept: String?) -> (contentType: String, body: [UInt8]) {
        let format = ExpositionFormat.negotiate(accept: accept)
        return (format.contentType, registry.render(format: format))
    }
}

/// Stand-in for real work: sums a payload, failing on empty ones.
func process(job: [UInt8], metrics: ServiceMetrics) throws {
    metrics.inFlight.increment()
    defer { metrics.inFlight.decrement() }
    let start = ContinuousClock.now
    defer {
        let elapsed = start.duration(to: .now).components
        metrics.duration.observe(Double(elapsed.seconds) + Double(elapsed.attoseconds) / 1e18)
    }
    metrics.payload.observe(Double(job.count))
    guard !job.isEmpty else { throw CocoaError(.featureUnsupported) }
    _ = job.reduce(0) { $0 &+ Int($1) }
}

let arguments = CommandLine.arguments
func option(_ name: String) -> String? {
    guard let index = arguments.firstIndex(of: name), index + 1 < arguments.count else { return nil }
    return arguments[index + 1]
}

do {
    let metrics = try ServiceMetrics()
    for size in [0, 10, 1_000, 50_000, 3] {
        do {
            try process(job: Array(repeating: 7, count: size), metrics: metrics)
            try metrics.jobs.labels("success").increment()
        } catch {
            try metrics.jobs.labels("failure").increment()
        }
    }
    if let gateway = option("--push"), let url = URL(string: gateway) {
        let client = try PushgatewayClient(configuration: .init(url: url, job: "instrumented_service"))
        try await client.push(metrics.registry)
        print("pushed to \(client.url)")
    } else {
        let response = metrics.scrape(accept: option("--accept"))
        FileHandle.standardError.write(Data("Content-Type: \(response.contentType)\n".utf8))
        FileHandle.standardOutput.write(Data(response.body))
    }
} catch {
    FileHandle.standardError.write(Data("InstrumentedService: \(error)\n".utf8))
    exit(1)
}
