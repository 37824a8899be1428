/// Benchmark scenarios for the Energy area.
enum EnergyBench {
    static let scenarios: [Scenario] = []
}
