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

/// `devices` of `servers` entries through the whole exporter: the merged `/metrics` of two
/// servers, and a reload that excludes a device without costing its total.
@Suite(.ownThreads, .timeLimit(.minutes(3))) struct DeviceSelectionEndToEndTests {
    static func stub(_ watts: Double) -> ClientStub {
        ClientStub([.success(.make(devices: [.make(id: "ups-1", alias: "Hall 1", watts: watts),
                                             .make(id: "ups-2", alias: "Spare", watts: watts / 2)]))])
    }

    static func line(_ samples: [String: Double], _ family: String, _ parts: [String]) -> String? {
        samples.keys.first { key in key.hasPrefix(family + "{") && parts.allSatisfy { key.contains($0) } }
    }

    @Test func perServerSelectionNamesAndLabelsInTheMergedExposition() async throws {
        let harness = try ServersHarness(servers: [("a", Self.stub(100)), ("b", Self.stub(200))]) { configuration in
            configuration.servers[0].winPower.devices = DeviceSelection(
                overrides: ["ups-1": .init(name: "Hall A UPS", labels: [.init(name: "rack", value: "r1")])])
            configuration.servers[1].winPower.devices = DeviceSelection(excludeAliases: ["Spare*"])
        }
        for pipeline in harness.exporter.pipelines { await pipeline.collector.collect() }
        harness.exporter.merger.publish()
        let samples = try await harness.scrape()
        let renamed = try #require(Self.line(samples, "winpower_device_info", ["server=\"a\"", "device_id=\"ups-1\""]))
        #expect(renamed.contains("device_name=\"Hall A UPS\"") && renamed.contains("rack=\"r1\"") && renamed.contains("site=\"site-0\""))
        let other = try #require(Self.line(samples, "winpower_device_info", ["server=\"a\"", "device_id=\"ups-2\""]))
        #expect(other.contains("rack=\"\""), "every device of the server carries the label, empty without a value")
        let fromB = try #require(Self.line(samples, "winpower_device_info", ["server=\"b\"", "device_id=\"ups-1\""]))
        #expect(!fromB.contains("rack="), "server b has no device labels")
        #expect(Self.line(samples, "winpower_device_info", ["server=\"b\"", "device_id=\"ups-2\""]) == nil, "excluded on b only")
        #expect(samples["winpower_exporter_device_count{server=\"b\",site=\"site-1\"}"] == 1)
    }

    @Test func aReloadThatExcludesADeviceKeepsItsTotal() async throws {
        let next = ServersReloadTests.NextConfiguration()
        let harness = try ServersHarness(
            servers: [("a", Self.stub(100))],
            reload: { LoadedConfiguration(configuration: try #require(next.value.withLock { $0 })) },
            clientFactory: { _ in Self.stub(100) })
        for _ in 0..<2 {
            for pipeline in harness.exporter.pipelines { await pipeline.collector.collect() }
            harness.clock.advance(by: .seconds(5))
        }
        let key = EnergyKey.qualified(server: "a", device: "ups-2")
        let before = try #require(harness.exporter.meter.totals[key]?.joules)
        #expect(before == 250, "50 W for 5 s")
        var configuration = harness.exporter.configuration
        configuration.servers[0].winPower.devices = DeviceSelection(exclude: ["ups-2"])
        let applied = await ServersReloadTests.applied(harness, next, configuration)
        #expect(applied != nil)
        for _ in 0..<2 {
            for pipeline in harness.exporter.pipelines { await pipeline.collector.collect() }
            harness.clock.advance(by: .seconds(5))
        }
        #expect(harness.exporter.meter.totals[key]?.joules == before, "not integrated while excluded, not lost")
        harness.exporter.merger.publish()
        let samples = try await harness.scrape()
        #expect(Self.line(samples, "winpower_device_energy_joules_total", ["device_id=\"ups-2\""]) == nil)
        #expect(Self.line(samples, "winpower_device_energy_joules_total", ["device_id=\"ups-1\""]) != nil)
        #expect(harness.exporter.persist(timeout: .seconds(60)))
        let state = try String(contentsOfFile: harness.dataDirectory + "/energy.state", encoding: .utf8)
        #expect(state.contains("ups-2"), "the state file still holds the excluded device's total")
    }
}
