import Foundation
import Synchronization
import Testing
import WPTestThreads
import WPClient
import WPCollector
import WPConfig
import WPEnergy
import WPTestSupport
@testable import WPExporter
import WPRuntime

/// A reload that renames a server (a new entry with `energy_from: <old>`, the old one removed)
/// moves every total to the new name while the exporter runs; one it cannot honour is refused.
@Suite(.ownThreads, .timeLimit(.minutes(4))) struct ServersLiveRenameTests {
    static func readout(mode: Int) -> Result<DeviceReadout, ClientError> {
        .success(.make(devices: [.make(id: "ups-1", watts: 360, mode: mode)]))
    }

    /// Line, battery, line: one outage in the ledger.
    static func outageClient() -> ClientStub { ClientStub([readout(mode: 3), readout(mode: 4), readout(mode: 3)]) }

    static func lineClient() -> ClientStub { ClientStub([readout(mode: 3)]) }

    /// The per-device counters (`winpower_device_…_total`) of `server`, keyed without the server label.
    static func counters(_ samples: [String: Double], server: String) -> [String: Double] {
        let label = "server=\"\(server)\""
        return Dictionary(uniqueKeysWithValues: samples.compactMap { series, value in
            guard series.hasPrefix("winpower_device_"), series.contains(label),
                  series.split(separator: "{").first?.hasSuffix("_total") == true else { return nil }
            return (series.replacingOccurrences(of: label, with: "server=*"), value)
        })
    }

    static let energy = "winpower_device_energy_joules_total"

    /// Joules after 30 s at 360 W (four readings 10 s apart).
    static let afterFourReadings: Double = 10_800

    static func energyOf(_ counters: [String: Double]) -> Double? {
        counters.first { $0.key.hasPrefix(energy + "{") }?.value
    }

    /// Collects on every pipeline `times` times, 10 s apart, and publishes.
    static func run(_ harness: ServersHarness, times: Int) async {
        for index in 0..<times {
            if index > 0 { harness.clock.advance(by: .seconds(10)) }
            for pipeline in harness.exporter.pipelines { await pipeline.collector.collect() }
        }
        harness.exporter.merger.publish()
    }

    @Test func aLiveRenameKeepsEveryTotalUnderTheNewNameAndARestartReadsThem() async throws {
        let next = ServersReloadTests.NextConfiguration()
        let harness = try ServersHarness(
            servers: [("a", Self.outageClient()), ("b", Self.lineClient())],
            reload: { LoadedConfiguration(configuration: try #require(next.value.withLock { $0 })) },
            clientFactory: { _ in Self.lineClient() })
        await Self.run(harness, times: 3)
        let before = Self.counters(try await harness.scrape(), server: "a")
        #expect(Self.energyOf(before) == 7200)
        #expect(before.first { $0.key.hasPrefix("winpower_device_battery_transfers_total{") }?.value == 1)
        let totalB = harness.exporter.meter.totals[EnergyKey.qualified(server: "b", device: "ups-1")]

        guard let applied = await ServersReloadTests.rename(harness, next, server: 0, to: "a2") else { return }
        #expect(applied.needsRestart.isEmpty)
        #expect(harness.exporter.pipelines.map(\.name) == ["a2", "b"])

        harness.clock.advance(by: .seconds(10))
        await Self.run(harness, times: 1)
        let samples = try await harness.scrape()
        #expect(!samples.keys.contains { $0.contains("server=\"a\"") }, "the old name's series are gone")
        var after = Self.counters(samples, server: "a2")
        #expect(Self.energyOf(after) == Self.afterFourReadings, "the chain in progress continues under the new name")
        after = after.filter { !$0.key.hasPrefix(Self.energy + "{") }
        #expect(after == before.filter { !$0.key.hasPrefix(Self.energy + "{") }, "every ledger counter kept")
        #expect(harness.exporter.meter.totals[EnergyKey.qualified(server: "b", device: "ups-1")]?.joules
                == (totalB?.joules ?? 0) + 3600, "the unchanged server kept counting")
        #expect(harness.exporter.meter.totals.keys.allSatisfy { EnergyKey.split($0)?.server != "a" })
        await harness.exporter.close()
        #expect(try Set(ServersEnergyTests.storedKeys(harness.dataDirectory).keys)
                == [EnergyKey.qualified(server: "a2", device: "ups-1"), EnergyKey.qualified(server: "b", device: "ups-1")])

        // A restart with the renamed file (energy_from no longer needed) reads them under a2.
        let restarted = try ServersHarness(servers: [("a2", Self.lineClient()), ("b", Self.lineClient())],
                                           dataDirectory: harness.dataDirectory, clock: harness.clock)
        harness.clock.advance(by: .seconds(3600))
        await Self.run(restarted, times: 1)
        let reread = Self.counters(try await restarted.scrape(), server: "a2")
        #expect(Self.energyOf(reread) == Self.afterFourReadings, "nothing added for the downtime, nothing lost")
        #expect(reread.filter { !$0.key.hasPrefix(Self.energy + "{") } == after)
        await restarted.exporter.close()
    }

    @Test func aRenameFromNothingIsRefusedAndKeepsTheRunningConfigurationAndTotals() async throws {
        let next = ServersReloadTests.NextConfiguration()
        let made = Mutex(0)
        let harness = try ServersHarness(
            servers: [("a", Self.outageClient()), ("b", Self.lineClient())],
            reload: { LoadedConfiguration(configuration: try #require(next.value.withLock { $0 })) },
            clientFactory: { _ in
                made.withLock { $0 += 1 }
                return Self.lineClient()
            })
        await Self.run(harness, times: 3)
        let totals = harness.exporter.meter.totals
        let pipelines = harness.exporter.pipelines
        let running = harness.exporter.configuration

        var configuration = running
        configuration.servers[0].name = "a2"
        configuration.servers[0].energyFrom = "nowhere"
        next.value.withLock { $0 = configuration }
        let outcome = await harness.exporter.reloader.reload(trigger: "test")
        let expected = "error: servers[0].energy_from: \"nowhere\" names no running server and no stored energy totals; "
            + "nothing to continue"
        #expect(outcome == .rejected(expected))
        #expect(harness.exporter.pipelines.map(\.name) == ["a", "b"])
        #expect(zip(harness.exporter.pipelines, pipelines).allSatisfy { $0 === $1 }, "the running pipelines stay")
        #expect(harness.exporter.configuration == running)
        #expect(made.withLock { $0 } == 0, "no client made for a refused reload")
        #expect(harness.exporter.meter.totals == totals)
        #expect(!harness.exporter.reloader.status.lastSuccessful)
        let health = try await harness.get("/health").text
        #expect(health.contains("\"last_successful\":false"))
        #expect(health.contains("names no running server and no stored energy totals"))

        harness.clock.advance(by: .seconds(10))
        await Self.run(harness, times: 1)
        let samples = try await harness.scrape()
        #expect(Self.energyOf(Self.counters(samples, server: "a")) == Self.afterFourReadings, "a keeps counting")
        #expect(!samples.keys.contains { $0.contains("server=\"a2\"") })
        await harness.exporter.close()
    }

    /// A refused `energy_from` is written as configuration errors are: `error:`, the file
    /// position, the entry by its index.
    @Test func aRefusedEnergyFromNamesItsFilePosition() throws {
        let file = "servers:\n  - name: a\n    base_url: http://127.0.0.1:1\n  - name: b2\n    base_url: http://127.0.0.1:2\n"
            + "    energy_from: nowhere\n"
        let loaded = try ConfigurationLoader.load(ConfigurationInputs(
            configPath: "./config.yaml",
            environment: ["WINPOWER_EXPORTER_WINPOWER_USERNAME": "u", "WINPOWER_EXPORTER_WINPOWER_PASSWORD": "p"],
            files: .inMemory(["./config.yaml": file])))
        let refusal = try #require(throws: ReloadRenames.Refusal.self) {
            try ReloadRenames(running: ["a", "b"], next: loaded.configuration, stored: ["a", "b"])
        }
        #expect(refusal.located(in: loaded) == #"error: ./config.yaml:6:18: servers[1].energy_from: "nowhere" names no running server "#
            + "and no stored energy totals; nothing to continue")
        #expect(refusal.description.hasPrefix("error: servers[1].energy_from: "))
    }
}
