package import WPMetrics
package import WPServerMetrics

/// The metrics rendered on every scrape rather than once per collection: requests served by
/// handler and status code (``requests``, the HTTP server's and router's observer), the
/// `process_*` family and `winpower_exporter_build_info`.
///
/// The small registry renders in a few microseconds and is appended after the collector's snapshot.
///
/// ```swift
/// let scrape = try ScrapeMetrics(build: .current)
/// var router = WPRouter(observer: scrape.requests)
/// let tail = scrape.render(format: .text)
/// ```
package final class ScrapeMetrics: Sendable {
    package let registry = MetricRegistry()
    /// Counts every routed request in `winpower_exporter_requests_total{handler,code}`.
    package let requests: RequestMetrics

    /// - Parameters:
    ///   - build: the facts exported as `winpower_exporter_build_info`.
    ///   - process: where the `process_*` figures are read from (tests point it elsewhere).
    /// - Throws: `MetricsError` only if the fixed names were invalid.
    package init(build: BuildInfo, process: ProcessCollector.Configuration = .init()) throws(MetricsError) {
        requests = try RequestMetrics(requestsName: "winpower_exporter_requests_total",
                                      help: "HTTP requests served by the exporter, by handler and status code.",
                                      durationName: nil, registry: registry)
        try registry.register(ProcessCollector(configuration: process))
        try registry.register(Info(name: "winpower_exporter_build_info",
                                   help: "A metric with a constant '1' value labeled by version, revision and Swift version.",
                                   labels: ["version": build.version, "revision": build.gitCommit,
                                            "swift_version": build.swift]))
    }

    /// The per-scrape families in `format`; for OpenMetrics this ends with `# EOF`.
    package func render(format: ExpositionFormat) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(4096)
        ExpositionEncoder(format: format).encode(registry.collect(), into: &bytes, terminated: true)
        return bytes
    }
}
