import Foundation
import Testing
import WPClient
import WPCollector
import WPNUT
import WPTestSupport
@testable import WPExporter

/// The NUT bridge's data: the collectors' published readings as NUT UPSs.
@Suite(.timeLimit(.minutes(3))) struct NUTFleetSourceTests {
    @Test func devicesBecomeUPSsWithReadableUniqueNamesAndTheReadingsOfMetrics() async throws {
        let harness = try await ExporterHarness(devices: 7)
        defer { Task { await harness.shutdown() } }
        await harness.exporter.collector.collect()
        let source = NUTFleetSource(fleet: harness.exporter.fleet, settings: NUTBridgeSettings(), version: "9.9.9")
        let list = source.upsList()
        // The simulator's aliases: "C3K" three times, "Server room \"A\"", "Rack\\B-2", "机房 UPS 3", "Büro-USV".
        #expect(Set(list.map(\.name)) == ["c3k", "server-room-a", "c3k-2", "rack-b-2", "ups-3", "b-ro-usv", "c3k-3"])
        for ups in list { #expect(NUTNames.isValid(ups.name), "\(ups.name)") }
        // Descriptions are printable ASCII: PyNUT splits at quotes, aionut decodes as ASCII.
        for ups in list {
            #expect(ups.description.unicodeScalars.allSatisfy { $0.isASCII && $0.value >= 0x20 && $0 != "\"" && $0 != "\\" },
                    "\(ups.description)")
        }
        #expect(list.first { $0.name == "ups-3" }?.description.hasPrefix("?? UPS 3") == true)
        #expect(list.first { $0.name == "b-ro-usv" }?.description.hasPrefix("B?ro-USV") == true)
        let samples = try await harness.scrape()
        for ups in list {
            let id = try #require(ups.value(of: "ups.id"))
            let charge = Exposition.value(samples, "winpower_device_battery_capacity", device: id)
            #expect(ups.value(of: "battery.charge") == charge.map(NUTVariables.format), "\(ups.name): what /metrics shows, or absent")
            let connected = Exposition.value(samples, "winpower_device_connected", device: id)
            #expect(ups.isStale == (connected == 0), "\(ups.name): a disconnected device is stale")
            #expect(ups.value(of: "driver.version") == "9.9.9")
        }
    }

    /// Readings older than the staleness window, or WinPower unreachable: every read is stale.
    @Test func oldReadingsAreStale() async throws {
        let harness = try await ExporterHarness(devices: 2)
        defer { Task { await harness.shutdown() } }
        await harness.exporter.collector.collect()
        let source = NUTFleetSource(fleet: harness.exporter.fleet, settings: NUTBridgeSettings(), version: "1")
        let name = try #require(source.upsList().first?.name)
        #expect(source.ups(named: name)?.isStale == false)
        harness.clock.advance(by: harness.exporter.collector.configuration.stalenessWindow + .seconds(1))
        #expect(source.ups(named: name)?.isStale == true)
    }

    /// Configured names win; the fixed alias (Synology's `ups`) reaches one device; a device
    /// keeps its name when another one with the same alias appears.
    @Test func configuredNamesAndTheDefaultAlias() async throws {
        let harness = try await ExporterHarness(devices: 3)
        defer { Task { await harness.shutdown() } }
        await harness.exporter.collector.collect()
        let ids = harness.exporter.collector.devices.readings.map(\.device.id)
        var settings = NUTBridgeSettings()
        settings.names = [ids[1]: "main"]
        settings.defaultUPS = (alias: "ups", device: ids[1])
        settings.deviceThresholds = [ids[1]: NUTThresholds(chargeLow: 55, runtimeLow: 600)]
        let source = NUTFleetSource(fleet: harness.exporter.fleet, settings: settings, version: "1")
        let main = try #require(source.ups(named: "main"))
        #expect(main.value(of: "ups.id") == ids[1])
        #expect(main.value(of: "battery.charge.low") == "55")
        #expect(main.value(of: "battery.runtime.low") == "600")
        #expect(source.ups(named: "ups")?.value(of: "ups.id") == ids[1])
        #expect(!source.upsList().map(\.name).contains("ups"), "the alias is not listed twice")
        let before = Dictionary(uniqueKeysWithValues: source.upsList().map { ($0.value(of: "ups.id") ?? "", $0.name) })
        await harness.exporter.collector.collect()
        let after = Dictionary(uniqueKeysWithValues: source.upsList().map { ($0.value(of: "ups.id") ?? "", $0.name) })
        #expect(before == after, "names do not move between collections")
    }
}
