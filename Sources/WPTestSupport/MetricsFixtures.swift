package import WPMetrics
import WPRuntime

/// Registries and families that cover every metric type, escaping case and special value,
/// for golden tests of the exposition formats.
package enum MetricsFixtures {
    /// Help text that needs escaping in both formats (backslash, newline, quote, UTF-8).
    package static let trickyHelp = "Line one.\nLine two with a backslash \\ and \"quotes\" and UTF-8: Grüße 🚀."

    /// Label values that need escaping, keyed by a short case name.
    package static let trickyLabelValues: [(String, String)] = [
        ("backslash", "C:\\path\\to"), ("empty", ""), ("newline", "first\nsecond"),
        ("quote", "say \"hi\""), ("utf8", "Grüße 🚀 日本"),
    ]

    /// Values that exercise every formatting rule, keyed by a short case name.
    package static let specialValues: [(String, Double)] = [
        ("integer", 90), ("fraction", 0.1), ("tiny", 1.5e-7), ("large", 1e21), ("million", 1_000_000),
        ("negative", -42.5), ("zero", 0), ("plus_inf", .infinity), ("minus_inf", -.infinity), ("nan", .nan),
    ]

    /// A registry with one of everything; deterministic given the manual clock.
    ///
    /// - Parameter clock: The clock for the summaries (never advanced here).
    /// - Returns: The filled registry.
    /// - Throws: Only if WPMetrics rejects its own fixture (a bug).
    package static func everyTypeRegistry(clock: ManualClock) throws -> MetricRegistry {
        let registry = MetricRegistry()
        let requests = try registry.counter(name: "sample_requests_total", help: trickyHelp)
        try requests.increment(by: 1027)
        let byPath = try registry.counterVec(name: "sample_path_requests_total", help: "Requests by path.",
                                             labelNames: ["case", "path"])
        for (name, value) in trickyLabelValues { try byPath.labels(name, value).increment() }
        let special = try registry.gaugeVec(name: "sample_special_values", help: "Every formatting rule.",
                                            labelNames: ["case"])
        for (name, value) in specialValues { try special.labels(name).set(value) }
        let temperature = try registry.gauge(name: "sample_temperature_celsius", help: "A gauge with a unit.", unit: "celsius")
        temperature.set(21.5)
        let energy = try registry.counter(name: "sample_energy_joules_total", help: "A counter with a unit.", unit: "joules")
        try energy.increment(by: 3600.25)
        let latency = try registry.histogram(name: "sample_request_duration_seconds", help: "Default buckets.", unit: "seconds")
        for value in [0.003, 0.02, 0.02, 0.3, 4, 12] { latency.observe(value) }
        let sizes = try registry.histogramVec(name: "sample_response_size_bytes", help: "Exponential buckets.",
                                              labelNames: ["handler"],
                                              buckets: try Buckets.exponential(start: 100, factor: 10, count: 3))
        for value in [50.0, 150, 5000, 1e6] { try sizes.labels("/metrics").observe(value) }
        try sizes.labels("/health").observe(10)
        let rpc = try registry.summary(name: "sample_rpc_seconds", help: "A summary.", clock: clock)
        for index in 1...100 { rpc.observe(Double(index) / 100) }
        let perMethod = try registry.summaryVec(name: "sample_method_seconds", help: "A summary vector.",
                                                labelNames: ["method"],
                                                configuration: .init(objectives: [0.5: 0.05]), clock: clock)
        try perMethod.labels("GET").observe(0.25)
        _ = try perMethod.labels("POST")  // no observations yet: quantile NaN
        try registry.register(try Info.build(namespace: "sample", version: "1.2.3", revision: "abc123",
                                             extra: ["branch": "main"]))
        let mode = try StateSet(name: "sample_mode", help: "A state set.", states: ["online", "battery", "bypass"])
        try mode.select("battery")
        try registry.register(mode)
        try registry.register(SnapshotCollector())
        return registry
    }

    /// A collector that hands over prebuilt families, like a per-cycle snapshot does:
    /// an `unknown` family and samples with `_created`.
    struct SnapshotCollector: Collector {
        var descriptors: [MetricDescriptor] {
            [MetricDescriptor(name: "sample_untyped", help: "An untyped family.", type: .unknown),
             MetricDescriptor(name: "sample_created_total", help: "A counter with a creation time.", type: .counter,
                              labelNames: ["device_id"])]
        }

        func collect() -> [MetricFamily] {
            do {
                var untyped = try descriptors[0].makeFamily()
                try untyped.append(labelValues: [], value: 7)
                var created = try descriptors[1].makeFamily()
                try created.append(Sample(labelValues: ["2"], value: .counter(5), created: 1_700_000_000.5))
                try created.append(Sample(labelValues: ["1"], value: .counter(3), created: 1_700_000_000))
                return [untyped, created]
            } catch {
                return []
            }
        }
    }
}
