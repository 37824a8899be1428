/// Benchmark scenarios for the Metrics area.
enum MetricsBench {
    static let scenarios: [Scenario] = []
}
