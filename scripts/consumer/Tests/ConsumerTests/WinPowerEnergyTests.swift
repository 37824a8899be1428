#if os(Linux)
import Foundation
import Testing
import WPClient
import WPEnergy
import WPExporterTesting
import WPLogging
import WPRuntime
import WPStorage

/// The products a service embeds to talk to WinPower and keep energy totals, from a tag: the
/// client reads the simulated WinPower of the testing product, the meter integrates its load
/// on a manual clock into a data directory, and a second store reads the same totals back.
@Suite struct WinPowerEnergyTests {
    @Test func theClientsReadingsBecomeTotalsThatSurviveTheStore() async throws {
        let harness = try await ExporterTestHarness(devices: 2)
        let credentials = harness.simulator.configuration
        let client = WinPowerHTTPClient(
            configuration: .init(baseURL: try #require(URL(string: harness.winPowerURL)),
                                 username: credentials.username, password: credentials.password),
            logger: .disabled)
        let readout = try await client.fetchDevices()
        await harness.shutdown()
        #expect(readout.devices.count == 2)
        #expect(readout.isComplete)

        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("consumer-\(UUID())").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let samples = readout.devices.map {
            EnergySample(deviceID: $0.id, watts: $0.realtime.loadTotalWatt, connected: $0.connected != false)
        }
        let clock = ManualClock()
        let store = try FileEnergyStore(configuration: StorageConfiguration(dataDirectory: directory), logger: .disabled)
        let meter = try EnergyMeter.open(store: store, clock: clock, logger: .disabled)
        meter.record(samples)
        clock.advance(by: .seconds(20))
        let report = meter.record(samples)
        try meter.flush()
        store.close()
        let watts = try #require(readout.devices.first?.realtime.loadTotalWatt)
        #expect(watts > 0, "the simulated UPS carries a load")
        let first = try #require(report.totals[readout.devices[0].id])
        #expect(abs(first.joules - watts * 20) < 1e-6, "20 s at the device's load")

        let reopened = try FileEnergyStore(configuration: StorageConfiguration(dataDirectory: directory), logger: .disabled)
        defer { reopened.close() }
        let loaded = try reopened.load()
        #expect(loaded.state.devices[readout.devices[0].id]?.joules == first.joules)
    }
}
#endif
