import Testing
import UPSModeLog
import WPExporterTesting
import WPFrontEnd
import WPRuntime
import WPSimulator

/// The front end added from outside the package, run by the exporter against a simulated
/// WinPower whose first UPS loses mains from 20 s to 50 s.
@Suite(.timeLimit(.minutes(2))) struct UPSModeLogTests {
    @Test func anOutageIsTwoChangesOnMetricsAndHealth() async throws {
        let harness = try await ExporterTestHarness(devices: 2, simulator: { simulator in
            simulator.outageSchedule = [OutageWindow(device: 0, start: 20, length: 30)]
        }, frontEnds: [UPSModeLog<ManualClock>.factory()])
        await harness.collect()                  // t = 0: on line, the first readings
        #expect(!(try await harness.metrics()).contains("example_ups_mode_changes_total{"))
        harness.advance(by: .seconds(25))
        await harness.collect()                  // t = 25 s: on battery
        harness.advance(by: .seconds(35))
        await harness.collect()                  // t = 60 s: back on line
        let metrics = try await harness.metrics()
        let changes = metrics.split(separator: "\n").filter { $0.hasPrefix("example_ups_mode_changes_total{") }
        #expect(changes.count == 2, "\(changes)")
        #expect(changes.contains { $0.contains("mode=\"battery\"") && $0.hasSuffix(" 1") }, "\(changes)")
        #expect(changes.contains { $0.contains("mode=\"line\"") && $0.hasSuffix(" 1") }, "\(changes)")
        let health = try await harness.metrics(path: "/health")
        #expect(health.contains("\"mode_log\":{\"changes\":2}"), "\(health)")
        await harness.shutdown()
    }
}
