/// Benchmark scenarios for the Server area.
enum ServerBench {
    static let scenarios: [Scenario] = []
}
