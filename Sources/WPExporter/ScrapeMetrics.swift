import WPMetrics
import WPServer

/// The metrics rendered on every scrape rather than once per collection: requests served by
/// handler and status code, the `process_*` family and `winpower_exporter_build_info`.
///
/// It is the HTTP server's ``RequestObserver``, so every routed request is counted. The small
/// registry renders in a few microseconds and is appended after the collector's snapshot.
///
/// ```swift
/// let scrape = try ScrapeMetrics(build: .current)
/// var router = Router(observer: scrape)
/// let tail = scrape.render(format: .text)
/// ```
package final class ScrapeMetrics: RequestObserver {
    package let registry = MetricRegistry()
    private let requests: CounterVec

    /// - Parameters:
    ///   - build: the facts exported as `winpower_exporter_build_info`.
    ///   - process: where the `process_*` figures are read from (tests point it elsewhere).
    /// - Throws: `MetricsError` only if the fixed names were invalid.
    package init(build: BuildInfo, process: ProcessCollector.Configuration = .init()) throws(MetricsError) {
        requests = try CounterVec(name: "winpower_exporter_requests_total",
                                  help: "HTTP requests served by the exporter, by handler and status code.",
                                  labelNames: ["handler", "code"])
        try registry.register(requests)
        try registry.register(ProcessCollector(configuration: process))
        try registry.register(Info(name: "winpower_exporter_build_info",
                                   help: "A metric with a constant '1' value labeled by version, revision and Swift version.",
                                   labels: ["version": build.version, "revision": build.gitCommit,
                                            "swift_version": build.swift]))
    }

    package func requestHandled(_ event: RequestEvent) {
        // Label values are route names and numbers: always valid, the error path is unreachable.
        try? requests.labels(event.handler, String(event.status)).increment()
    }

    /// The per-scrape families in `format`; for OpenMetrics this ends with `# EOF`.
    package func render(format: ExpositionFormat) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(4096)
        ExpositionEncoder(format: format).encode(registry.collect(), into: &bytes, terminated: true)
        return bytes
    }
}
