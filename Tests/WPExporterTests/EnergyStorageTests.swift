import Foundation
import Testing
import WPTestThreads
import WPCollector
import WPEnergy
import WPLogging
import WPRuntime
import WPSimulator
import WPStorage
import WPTestSupport
@testable import WPExporter

/// The exporter's energy store is a seam: the data directory by default, memory only on
/// request, or a store the caller gives (a test's fake instead of a temporary directory).
@Suite(.ownThreads, .timeLimit(.minutes(4))) struct EnergyStorageTests {
    static func collectAndSave(_ harness: ExporterHarness) async throws {
        harness.clock.advance(by: .seconds(5))
        await harness.exporter.collector.collect()
        let meter = harness.exporter.meter
        _ = try? await NamedThread.run(name: "test-wait-save") { try meter.waitForSaves(timeout: .seconds(60)) }
    }

    @Test func memoryStorageTouchesNoDirectoryAndHealthNamesIt() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("wpexporter-never-\(UUID().uuidString)").path
        let harness = try await ExporterHarness(devices: 2, dataDirectory: directory, energyStorage: .memory)
        try await Self.collectAndSave(harness)
        try await Self.collectAndSave(harness)
        let device = harness.simulator.devices[0].id
        let energy = try #require(Exposition.value(try await harness.scrape(), "winpower_device_energy_joules_total", device: device))
        #expect(energy > 0)
        let health = try await harness.get("/health")
        #expect(health.status == 200, "\(health.text)")
        let object = try JSONSerialization.jsonObject(with: Data(health.text.utf8)) as? [String: Any]
        let storage = try #require(object?["storage"] as? [String: Any])
        #expect(storage["data_dir"] as? String == "memory")
        #expect(storage["last_save_successful"] as? Bool == true)
        #expect(harness.logs.records.contains { $0.message.hasPrefix("energy totals kept in memory only") })
        #expect(await harness.exporter.close())
        await harness.shutdown()
        #expect(!FileManager.default.fileExists(atPath: directory), "the memory store created \(directory)")
    }

    @Test func aGivenStoreIsLoadedFromAndSavedTo() async throws {
        // The simulator's device ids are known before the harness starts: start from stored totals.
        let probe = try await ExporterHarness(devices: 1, energyStorage: .memory)
        let device = probe.simulator.devices[0].id
        _ = await probe.exporter.close()
        await probe.shutdown()

        let store = InMemoryEnergyStore(initial: EnergyState(devices: [device: StoredDeviceEnergy(joules: 3_600_000)]))
        let harness = try await ExporterHarness(devices: 1, energyStorage: .store(store))
        #expect(store.loadCount == 1)
        try await Self.collectAndSave(harness)
        let energy = try #require(Exposition.value(try await harness.scrape(), "winpower_device_energy_joules_total", device: device))
        #expect(energy >= 3_600_000)
        #expect(await harness.exporter.close())
        await harness.shutdown()
        let saved = try #require(store.lastSaved?.devices[device]?.joules)
        #expect(saved >= 3_600_000)
    }

    @Test func aStoreThatFailsToSaveMakesTheShutdownSaySo() async throws {
        let store = InMemoryEnergyStore()
        let harness = try await ExporterHarness(devices: 1, energyStorage: .store(store))
        try await Self.collectAndSave(harness)
        store.failNextSaves(1_000)
        harness.clock.advance(by: .seconds(5))
        await harness.exporter.collector.collect()   // new readings the final save must write
        let saved = await harness.exporter.close()
        await harness.shutdown()
        #expect(!saved)
        #expect(harness.logs.allText.contains("the totals were kept in memory only"), "\(harness.logs.allText)")
    }
}
