/// Benchmark scenarios for the Client area.
enum ClientBench {
    static let scenarios: [Scenario] = []
}
