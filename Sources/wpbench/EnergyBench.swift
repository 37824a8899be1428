import Foundation
import WPEnergy
import WPLogging
import WPStorage

/// Benchmark scenarios for the Energy area: one collection cycle's integrate + persist.
enum EnergyBench {
    static let scenarios: [Scenario] = [1_000, 10_000].map { devices in
        Scenario(name: "energy-cycle-\(devices)",
                 summary: "integrate \(devices) devices' samples and persist the state once (sync_write)") {
            try cycle(devices: devices, cycles: 30)
        }
    }

    /// Runs `cycles` cycles on a fresh data directory and prints the best and median figures.
    static func cycle(devices: Int, cycles: Int) throws {
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("wpbench-energy-\(getpid())-\(devices)").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let store = try FileEnergyStore(configuration: StorageConfiguration(dataDirectory: directory),
                                        logger: .disabled)
        defer { store.close() }
        let clock = ContinuousClock()
        let meter = try EnergyMeter.open(store: store, clock: clock, logger: .disabled)
        let ids = (0..<devices).map { "ups-\($0)" }
        let start = clock.now
        var totals: [Double] = []
        var integrateOnly: [Double] = []
        var integrator = EnergyIntegrator<ContinuousClock.Instant>(configuration: EnergyConfiguration())
        for round in 0...cycles {
            let samples = ids.enumerated().map { index, id in
                EnergySample(deviceID: id, watts: 100 + Double((index * 7 + round) % 400), connected: true)
            }
            let instant = start.advanced(by: .seconds(5 * round))
            let began = clock.now
            let report = meter.record(samples, at: instant)
            try meter.waitForSaves()  // the save runs on the meter's writer thread; timed with the cycle
            let elapsed = began.duration(to: clock.now)
            guard report.saveRequested else { throw StorageError.closed(dataDirectory: directory) }
            let integrateBegan = clock.now
            integrator.integrate(samples, at: instant)
            let integrateElapsed = integrateBegan.duration(to: clock.now)
            if round > 0 {  // the first cycle warms caches and creates the files
                totals.append(milliseconds(elapsed))
                integrateOnly.append(milliseconds(integrateElapsed))
            }
        }
        let statistics = store.statistics
        totals.sort()
        integrateOnly.sort()
        print("   devices: \(devices), cycles: \(cycles), state file: \(statistics.lastSaveBytes) bytes")
        print(String(format: "   integrate+persist: best %.2f ms, median %.2f ms per cycle",
                     totals[0], totals[totals.count / 2]))
        print(String(format: "   integrate only:    best %.2f ms, median %.2f ms per cycle",
                     integrateOnly[0], integrateOnly[integrateOnly.count / 2]))
        print("   fsyncs per cycle: \(Double(statistics.fsyncs) / Double(statistics.saves)) (\(statistics.fsyncs) in \(statistics.saves) saves)")
    }

    private static func milliseconds(_ duration: Duration) -> Double {
        let parts = duration.components
        return Double(parts.seconds) * 1000 + Double(parts.attoseconds) * 1e-15
    }
}
