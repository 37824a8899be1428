/// Benchmark scenarios for the Collector area.
enum CollectorBench {
    static let scenarios: [Scenario] = []
}
