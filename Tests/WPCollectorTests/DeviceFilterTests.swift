import Foundation
import Testing
import WPTestThreads
import WPClient
import WPCollector
import WPEnergy
import WPSimulator
import WPStorage
import WPTestSupport
import WPRuntime

/// Choosing, naming and labelling devices: `DeviceFilter` applied by the collector.
@Suite(.ownThreads, .timeLimit(.minutes(4))) struct DeviceFilterTests {
    @Test(arguments: [
        ("C3K", "C3K", true), ("C3K", "c3k", false), ("*", "", true), ("*", "anything at all", true),
        ("Hall *", "Hall 3", true), ("Hall *", "Hall", false), ("Hall*", "Hall", true), ("?3K", "C3K", true),
        ("?3K", "3K", false), ("*UPS*", "Rack UPS 2", true), ("*UPS*", "Rack ups 2", false),
        ("a*b*c", "aXXbYYc", true), ("a*b*c", "aXXbYY", false), ("\\*", "*", true), ("\\*", "x", false),
        ("\\?x", "?x", true), ("机房*", "机房 UPS 3", true), ("Büro-?SV", "Büro-USV", true), ("**a", "ba", true),
    ])
    func aliasPatterns(pattern: String, alias: String, matches: Bool) {
        #expect(AliasPattern(pattern).matches(alias) == matches, "\(pattern) ~ \(alias)")
    }

    @Test func manyStarsAgainstALongAliasEndWithoutBacktrackingBlowUp() {
        // Exponential backtracking would not finish; this matcher does at most pattern × text steps.
        let pattern = AliasPattern(String(repeating: "*a", count: 40) + "b")
        #expect(!pattern.matches(String(repeating: "a", count: 2_000)))
        #expect(pattern.matches(String(repeating: "a", count: 2_000) + "b"))
    }

    static func device(_ id: String, _ alias: String?) -> Device { Device.make(id: id, alias: alias, watts: 100) }

    @Test func includeAndExcludeByIdAndAlias() {
        let devices = [Self.device("a", "Hall 1"), Self.device("b", "Hall 2"), Self.device("c", "Test bench"),
                       Self.device("d", nil), Self.device("e", "Office")]
        func kept(_ filter: DeviceFilter) -> [String] { devices.filter(filter.keeps).map(\.id) }
        #expect(kept(.all) == ["a", "b", "c", "d", "e"])
        #expect(kept(DeviceFilter(include: ["a", "e"])) == ["a", "e"])
        #expect(kept(DeviceFilter(includeAliases: [AliasPattern("Hall *")])) == ["a", "b"])
        #expect(kept(DeviceFilter(include: ["e"], includeAliases: [AliasPattern("Hall *")])) == ["a", "b", "e"], "either includes")
        #expect(kept(DeviceFilter(exclude: ["b"], excludeAliases: [AliasPattern("Test*")])) == ["a", "d", "e"])
        #expect(kept(DeviceFilter(includeAliases: [AliasPattern("Hall *")], excludeAliases: [AliasPattern("*2")])) == ["a"],
                "exclusion wins")
        #expect(kept(DeviceFilter(excludeAliases: [AliasPattern("*")])) == [], "an alias-less device matches * as \"\"")
    }

    static func fixture(_ filter: DeviceFilter, devices: Int = 6,
                        store: InMemoryEnergyStore = InMemoryEnergyStore()) throws -> (SimulatorHarness, CollectorFixture) {
        let harness = SimulatorHarness(devices: devices)
        var configuration = CollectorConfiguration(target: "http://winpower.test:8081")
        configuration.devices = filter
        let fixture = try CollectorFixture(client: harness.makeClient(), clock: harness.clock, store: store,
                                           configuration: configuration, epoch: harness.epoch)
        return (harness, fixture)
    }

    @Test func anExcludedDeviceIsNeitherExportedIntegratedPublishedNorCountedAndKeepsItsTotal() async throws {
        let simulated = (0..<6).map(SimulatedDevice.init(index:))
        let excluded = simulated[0].id
        let stored = EnergyState(devices: [excluded: StoredDeviceEnergy(joules: 7_200_000)])
        let store = InMemoryEnergyStore(initial: stored)
        let (harness, fixture) = try Self.fixture(DeviceFilter(exclude: [excluded], excludeAliases: [AliasPattern("Rack*")]),
                                                  store: store)
        for _ in 0..<2 {
            await fixture.collector.collect()
            harness.clock.advance(by: .seconds(5))
        }
        let exposition = try fixture.exposition()
        let rack = harness.simulator.devices.filter { $0.alias.hasPrefix("Rack") }.map(\.id)
        #expect(!rack.isEmpty)
        let gone = Set([excluded] + rack)
        let kept = harness.simulator.devices.map(\.id).filter { !gone.contains($0) }
        #expect(exposition.value("winpower_exporter_device_count") == Double(kept.count))
        for id in gone {
            #expect(exposition.samples("winpower_device_info", ["device_id": id]).isEmpty)
            #expect(exposition.samples("winpower_device_energy_joules_total", ["device_id": id]).isEmpty)
            #expect(!fixture.collector.devices.readings.contains { $0.device.id == id }, "not published to NUT clients")
        }
        for id in kept { #expect(fixture.collector.devices.readings.contains { $0.device.id == id }) }
        #expect(fixture.meter.totals[excluded]?.joules == 7_200_000, "not integrated, total kept")
        #expect(store.lastSaved?.devices[excluded]?.joules == 7_200_000, "and still saved")
        #expect(fixture.meter.totals[rack[0]] == nil, "an excluded device never seen is not integrated at all")
    }

    @Test func namesAndStaticLabelsOnEverySeriesOfTheDevice() async throws {
        let simulated = (0..<3).map(SimulatedDevice.init(index:))
        let filter = DeviceFilter(names: [simulated[0].id: "Hall 1 UPS \"A\""],
                                  labels: [simulated[0].id: ["rack": "r12", "room": "2.14"], simulated[2].id: ["rack": "r7"]])
        #expect(filter.labelNames == ["rack", "room"])
        let (_, fixture) = try Self.fixture(filter, devices: 3)
        await fixture.collector.collect()
        let exposition = try fixture.exposition()
        let first = exposition.samples("winpower_device_info", ["device_id": simulated[0].id]).first?.labels
        #expect(first?["device_name"] == "Hall 1 UPS \"A\"")
        #expect(first?["rack"] == "r12" && first?["room"] == "2.14")
        #expect(exposition.samples("winpower_device_connected", ["device_id": simulated[2].id]).first?.labels["rack"] == "r7")
        #expect(exposition.samples("winpower_device_connected", ["device_id": simulated[2].id]).first?.labels["room"] == "")
        #expect(exposition.samples("winpower_device_connected", ["device_id": simulated[1].id]).first?.labels["rack"] == "")
        // Every per-device family carries them, energy and ledger ones included.
        for family in ["winpower_device_energy_joules_total", "winpower_device_battery_transfers_total",
                       "winpower_device_operating_mode", "winpower_device_load_total_watts"] {
            let samples = exposition.samples(family, ["device_id": simulated[0].id])
            #expect(!samples.isEmpty && samples.allSatisfy { $0.labels["rack"] == "r12" }, "\(family)")
        }
        #expect(fixture.collector.devices.readings.first { $0.device.id == simulated[0].id }?.device.asset.alias == "Hall 1 UPS \"A\"",
                "NUT clients see the name too")
    }
}
