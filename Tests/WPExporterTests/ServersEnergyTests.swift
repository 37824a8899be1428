import Foundation
import Testing
import WPTestThreads
import WPClient
import WPCollector
import WPConfig
import WPEnergy
import WPLogging
import WPStorage
import WPRuntime
import WPTestSupport
@testable import WPExporter
import WPWallClock

/// Energy totals keyed by (server, device) in the one state file, and kept when a
/// `winpower`-only configuration becomes a `servers` one or a server is renamed.
@Suite(.ownThreads, .timeLimit(.minutes(3))) struct ServersEnergyTests {
    static let readout = DeviceReadout.make(devices: [.make(id: "ups-1", watts: 360), .make(id: "ups-2", watts: 720)])

    /// Collects `times` readings 10 s apart on every pipeline, then persists and closes.
    static func run(_ harness: ServersHarness, times: Int = 2) async {
        for index in 0..<times {
            if index > 0 { harness.clock.advance(by: .seconds(10)) }
            for pipeline in harness.exporter.pipelines { await pipeline.collector.collect() }
        }
        harness.exporter.merger.publish()
    }

    static func storedKeys(_ directory: String) throws -> [String: Double] {
        let store = try FileEnergyStore(configuration: StorageConfiguration(dataDirectory: directory),
                                        logger: WPLogger(label: "t", sink: InMemoryLogSink()), wallClock: .system)
        defer { store.close() }
        return try store.load().state.devices.mapValues(\.joules)
    }

    static func joules(_ samples: [String: Double], server: String, device: String) -> Double? {
        samples.first { $0.key.hasPrefix("winpower_device_energy_joules_total{server=\"\(server)\"")
            && $0.key.contains("device_id=\"\(device)\"") }?.value
    }

    /// A `winpower`-only exporter that collected twice, 10 s apart, and was closed.
    static func winpowerOnly(_ clock: ManualClock) async throws -> ServersHarness {
        let single = try ServersHarness(servers: [("unused", ClientStub([.success(readout)]))], clock: clock) {
            $0.servers = []
        }
        await run(single)
        await single.exporter.close()
        return single
    }

    @Test func aWinpowerOnlyStateMovedToServersKeepsEveryTotal() async throws {
        let clock = ManualClock()
        let single = try await Self.winpowerOnly(clock)
        #expect(try Self.storedKeys(single.dataDirectory) == ["ups-1": 3600, "ups-2": 7200])

        // The entry whose base_url is winpower's adopts them; the other starts from 0.
        let multi = try ServersHarness(servers: [("other", ClientStub([.success(Self.readout)])),
                                                 ("main", ClientStub([.success(Self.readout)]))],
                                       dataDirectory: single.dataDirectory, clock: clock) {
            $0.servers[1].winPower.baseURL = $0.winPower.baseURL
        }
        clock.advance(by: .seconds(3600))
        await Self.run(multi, times: 1)
        let samples = try await multi.scrape()
        #expect(Self.joules(samples, server: "main", device: "ups-1") == 3600)
        #expect(Self.joules(samples, server: "main", device: "ups-2") == 7200)
        #expect(Self.joules(samples, server: "other", device: "ups-1") == 0)
        #expect(multi.logs.records.contains { $0.message == "stored energy totals moved to their servers" })
        await multi.exporter.close()
        #expect(try Self.storedKeys(single.dataDirectory)
                == ["main\u{1F}ups-1": 3600, "main\u{1F}ups-2": 7200, "other\u{1F}ups-1": 0, "other\u{1F}ups-2": 0],
                "the next save persists the new keys")
    }

    @Test func energyFromWinpowerWinsOverAMatchingBaseURL() {
        var configuration = ExporterConfiguration()
        configuration.winPower.baseURL = "http://wp:8081"
        configuration.servers = [ServerEntry(name: "a", winPower: configuration.winPower),
                                 ServerEntry(name: "b", winPower: configuration.winPower, energyFrom: "winpower")]
        let migration = EnergyMigration(configuration)
        #expect(migration.adopter == "b")
        let plan = migration.moves(["ups-1", "a\u{1F}ups-2"])
        #expect(plan.moves == ["ups-1": "b\u{1F}ups-1"])
        #expect(plan.unadopted == 0)
    }

    @Test func aRenamedServerKeepsItsTotals() async throws {
        let clock = ManualClock()
        let before = try ServersHarness(servers: [("old", ClientStub([.success(Self.readout)])),
                                                  ("kept", ClientStub([.success(Self.readout)]))], clock: clock)
        await Self.run(before)
        await before.exporter.close()
        let after = try ServersHarness(servers: [("new", ClientStub([.success(Self.readout)])),
                                                 ("kept", ClientStub([.success(Self.readout)]))],
                                       dataDirectory: before.dataDirectory, clock: clock) {
            $0.servers[0].energyFrom = "old"
        }
        await Self.run(after, times: 1)
        let samples = try await after.scrape()
        #expect(Self.joules(samples, server: "new", device: "ups-2") == 7200)
        #expect(Self.joules(samples, server: "kept", device: "ups-2") == 7200)
        #expect(!samples.keys.contains { $0.contains("server=\"old\"") })
        await after.exporter.close()
        #expect(try Set(Self.storedKeys(before.dataDirectory).keys)
                == ["new\u{1F}ups-1", "new\u{1F}ups-2", "kept\u{1F}ups-1", "kept\u{1F}ups-2"])
    }

    @Test func totalsNoEntryAdoptsStayInTheStateAndAreReported() async throws {
        let clock = ManualClock()
        let single = try await Self.winpowerOnly(clock)
        let multi = try ServersHarness(servers: [("a", ClientStub([.success(Self.readout)]))],
                                       dataDirectory: single.dataDirectory, clock: clock)
        await Self.run(multi, times: 1)
        #expect(multi.logs.records.contains { $0.level == .warn && $0.message.hasPrefix("energy totals of a winpower-only configuration") })
        #expect(Self.joules(try await multi.scrape(), server: "a", device: "ups-1") == 0)
        await multi.exporter.close()
        let stored = try Self.storedKeys(single.dataDirectory)
        #expect(stored["ups-1"] == 3600 && stored["ups-2"] == 7200, "never dropped")
        #expect(stored["a\u{1F}ups-1"] == 0)
    }

    @Test func aMoveNeverOverwritesATotalAlreadyThere() throws {
        let logs = InMemoryLogSink()
        let store = InMemoryEnergyStore(initial: EnergyState(devices: ["ups-1": StoredDeviceEnergy(joules: 10),
                                                                       "a\u{1F}ups-1": StoredDeviceEnergy(joules: 20)]))
        let (meter, moved) = try EnergyMeter.open(store: store, clock: ManualClock(), logger: WPLogger(label: "t", sink: logs)) { _ in
            ["ups-1": "a\u{1F}ups-1"]
        }
        #expect(moved == 0)
        #expect(meter.totals["ups-1"]?.joules == 10 && meter.totals["a\u{1F}ups-1"]?.joules == 20)
        #expect(logs.records.contains { $0.message.hasPrefix("stored energy not moved") })
    }

    /// Server names hold no U+001F (`[A-Za-z0-9_.-]`), so the first separator splits any key.
    @Test func qualifiedKeysNeverCollide() {
        let pairs = [("a", "b"), ("a.b", "c"), ("a", "b.c"), ("a", "b\u{1F}c"), ("a-b", ""), ("a", "-b")]
        #expect(Set(pairs.map { EnergyKey.qualified(server: $0.0, device: $0.1) }).count == pairs.count)
        for (server, device) in pairs {
            #expect(EnergyKey.split(EnergyKey.qualified(server: server, device: device))! == (server, device))
        }
        #expect(EnergyKey.split(EnergyKey.qualified(server: "a", device: "b\u{1F}c"))! == ("a", "b\u{1F}c"))
        #expect(EnergyKey.split("ups-1") == nil)
    }
}
