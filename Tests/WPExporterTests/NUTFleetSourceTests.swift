import Foundation
import Testing
import WPTestThreads
import WPClient
import WPCollector
import WPConfig
import WPLogging
import WPNUT
import WPSimulator
import WPSNMP
import WPStorage
import WPRuntime
import WPTestSupport
@testable import WPExporter
import WPNUTFrontEnd
@testable import WPSNMPFrontEnd
import WPWallClock

/// The NUT bridge's data: the collectors' published readings as NUT UPSs.
@Suite(.ownThreads, .timeLimit(.minutes(4))) struct NUTFleetSourceTests {
    @Test func devicesBecomeUPSsWithReadableUniqueNamesAndTheReadingsOfMetrics() async throws {
        let harness = try await ExporterHarness(devices: 7)
        defer { Task { await harness.shutdown() } }
        await harness.exporter.collector.collect()
        let source = NUTFleetSource(publication: harness.exporter.publication, settings: NUTBridgeSettings(), version: "9.9.9")
        let list = source.upsList()
        // The simulator's aliases: "C3K" three times, "Server room \"A\"", "Rack\\B-2", "机房 UPS 3", "Büro-USV".
        #expect(Set(list.map(\.name)) == ["c3k", "server-room-a", "c3k-2", "rack-b-2", "jifang-ups-3", "buro-usv", "c3k-3"])
        for ups in list { #expect(NUTNames.isValid(ups.name), "\(ups.name)") }
        // Descriptions keep the alias as WinPower gives it (the session makes them ASCII on the wire).
        #expect(list.first { $0.name == "jifang-ups-3" }?.description.hasPrefix("机房 UPS 3") == true)
        #expect(list.first { $0.name == "buro-usv" }?.description.hasPrefix("Büro-USV") == true)
        let samples = try await harness.scrape()
        for ups in list {
            let id = try #require(ups.value(of: "ups.id"))
            let charge = Exposition.value(samples, "winpower_device_battery_capacity", device: id)
            #expect(ups.value(of: "battery.charge") == charge.map(NUTVariables.format), "\(ups.name): what /metrics shows, or absent")
            let connected = Exposition.value(samples, "winpower_device_connected", device: id)
            #expect((ups.availability == .stale) == (connected == 0), "\(ups.name): a disconnected device is stale")
            #expect(ups.value(of: "driver.version") == "9.9.9")
        }
    }

    /// Issue 49: one `batCapacity` of `-1e308` on a UPS on battery gave `OB DISCHRG LB`, and a
    /// primary upsmon powered its hosts off. The reading is refused as it arrives: NUT shows
    /// `OB DISCHRG` without `battery.charge`, the UPS-MIB no `batteryLow` nor low-battery alarm.
    /// A plausible low charge still gives `LB`.
    @Test func anImpossibleChargeNeverGivesLowBattery() async throws {
        func device(charge: Double) -> Device {
            var device = Device.make(id: "ups-1", watts: 400)
            device.realtime.mode = 4
            device.realtime.batCapacity = charge
            device.realtime.batRemainTime = 1_800
            return device
        }
        let directory = temporaryPathRemovedAtExit("wpexporter-implausible")
        let configuration = ExporterHarness.configuration(baseURL: "http://127.0.0.1:9", username: "admin", password: "pw",
                                                          dataDirectory: directory)
        let clock = ManualClock()
        let exporter = try Exporter(configuration: configuration,
                                    client: ClientStub([.success(.make(devices: [device(charge: -1e308)])),
                                                        .success(.make(devices: [device(charge: 5)]))]),
                                    clock: clock, wallClock: .system, logger: .disabled)
        let source = NUTFleetSource(publication: exporter.publication, settings: NUTBridgeSettings(), version: "1")
        func served() throws -> (nut: NUTUPS, snmp: UPSMIBValues) {
            let ups = try #require(source.upsList().first)
            let device = try #require(exporter.collector.devices.readings.first?.device)
            return (ups, UPSMIBMapping.values(of: device, name: ups.name, agentVersion: "1", lowBatteryTime: 120))
        }
        await exporter.collector.collect()
        var (nut, snmp) = try served()
        #expect(nut.value(of: "ups.status") == "OB DISCHRG")
        #expect(nut.value(of: "battery.charge") == nil)
        #expect(snmp.batteryStatus == .batteryNormal && !snmp.alarms.contains { $0.alarm == .lowBattery }, "\(snmp)")
        clock.advance(by: .seconds(5))
        await exporter.collector.collect()
        (nut, snmp) = try served()
        #expect(nut.value(of: "ups.status") == "OB DISCHRG LB", "a plausible low charge still shuts down")
        #expect(snmp.batteryStatus == .batteryLow)
        await exporter.close()
    }

    /// Stale by age only, as upsd's MAXAGE: a failed collection (WinPower unreachable) keeps
    /// the last readings fresh until they are older than the staleness window.
    @Test func oldReadingsAreStaleAFailedCollectionIsNot() async throws {
        let harness = try await ExporterHarness(devices: 2)
        defer { Task { await harness.shutdown() } }
        await harness.exporter.collector.collect()
        let source = NUTFleetSource(publication: harness.exporter.publication, settings: NUTBridgeSettings(), version: "1")
        let name = try #require(source.upsList().first?.name)
        #expect(source.ups(named: name)?.availability == .fresh)
        try await harness.simulatorServer.setUnreachable(true)
        harness.clock.advance(by: harness.exporter.collector.configuration.interval)
        await harness.exporter.collector.collect()
        #expect(!harness.exporter.collector.health.winPowerReachable, "the collection failed")
        #expect(source.ups(named: name)?.availability == .fresh, "one failed collection does not make the UPS stale")
        harness.clock.advance(by: harness.exporter.collector.configuration.stalenessWindow)
        #expect(source.ups(named: name)?.availability == .stale)
    }

    /// With `nut.default_ups`, the alias `ups` is reserved: a device whose alias derives to
    /// `ups` is named `ups-2` and `ups` reaches the default device, under its own name.
    @Test func theAliasNeverHidesADevice() async throws {
        let ids = (0..<2).map { String(format: "5e1a7a0c-%04x-4b35-b0dd-%012x", $0, $0) }
        func makeHarness(defaultUPS: String?) async throws -> ExporterHarness {
            try await ExporterHarness(devices: 2, configureExporter: { configuration in
                configuration.winPower.devices.overrides = [ids[0]: .init(name: "---")]
                configuration.nut.defaultUPS = defaultUPS
            })
        }
        let harness = try await makeHarness(defaultUPS: ids[1])
        defer { Task { await harness.shutdown() } }
        await harness.exporter.collector.collect()
        #expect(harness.exporter.collector.devices.readings.map(\.device.id).sorted() == ids)
        var settings = NUTBridgeSettings()
        settings.defaultUPS = (alias: "ups", device: ids[1])
        let source = NUTFleetSource(publication: harness.exporter.publication, settings: settings, version: "1")
        let named = Dictionary(uniqueKeysWithValues: source.upsList().map { ($0.value(of: "ups.id") ?? "", $0.name) })
        #expect(named[ids[0]] == "ups-2", "an alias with nothing to spell does not take the reserved name")
        let target = try #require(source.ups(named: "UPS"))
        #expect(target.value(of: "ups.id") == ids[1])
        #expect(target.name == named[ids[1]], "the alias is the device under its own name")
        // Without the alias, the device may be named `ups`.
        let other = try await makeHarness(defaultUPS: nil)
        defer { Task { await other.shutdown() } }
        await other.exporter.collector.collect()
        let plain = NUTFleetSource(publication: other.exporter.publication, settings: NUTBridgeSettings(), version: "1")
        #expect(plain.ups(named: "ups")?.value(of: "ups.id") == ids[0])
    }

    /// Configured names win; the fixed alias (Synology's `ups`) reaches one device; a device
    /// keeps its name when another one with the same alias appears.
    @Test func configuredNamesAndTheDefaultAlias() async throws {
        let ids = (0..<3).map { String(format: "5e1a7a0c-%04x-4b35-b0dd-%012x", $0, $0) }
        let harness = try await ExporterHarness(devices: 3, configureExporter: { configuration in
            configuration.nut.ups = [ids[1]: .init(name: "main")]
            configuration.nut.defaultUPS = ids[1]
        })
        defer { Task { await harness.shutdown() } }
        await harness.exporter.collector.collect()
        #expect(harness.exporter.collector.devices.readings.map(\.device.id) == ids)
        var settings = NUTBridgeSettings()
        settings.defaultUPS = (alias: "ups", device: ids[1])
        settings.deviceThresholds = [ids[1]: NUTThresholds(chargeLow: 55, runtimeLow: 600)]
        let source = NUTFleetSource(publication: harness.exporter.publication, settings: settings, version: "1")
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

    /// Restarted while WinPower is unreachable, the bridge lists the UPSs it served before
    /// (kept with the energy state), accepts LOGIN and answers reads as upsd with its driver
    /// down, until the first collection brings the readings under the same names.
    @Test func namesSurviveARestartWhileWinPowerIsUnreachable() async throws {
        // The names are kept in the data directory while NUT (or SNMP) serves them.
        let serving: (inout ExporterConfiguration) -> Void = { $0.nut.listen = "127.0.0.1:0" }
        let first = try await ExporterHarness(devices: 3, configureExporter: serving)
        await first.exporter.collector.collect()
        let before = NUTFleetSource(publication: first.exporter.publication, settings: NUTBridgeSettings(), version: "1")
        let served = before.upsList().map { ($0.name, $0.description) }
        #expect(served.count == 3)
        await first.shutdown()

        let second = try await ExporterHarness(devices: 3, dataDirectory: first.dataDirectory, clock: first.clock,
                                               configure: { $0.faults = [.unreachable] }, configureExporter: serving)
        defer { Task { await second.shutdown() } }
        await second.exporter.collector.collect()
        let after = NUTFleetSource(publication: second.exporter.publication, settings: NUTBridgeSettings(), version: "1")
        let listed = after.upsList()
        #expect(listed.map(\.name) == served.map(\.0), "the names served before, in the same order")
        #expect(listed.map(\.description) == served.map(\.1))
        #expect(listed.allSatisfy { $0.availability == .driverNotConnected && $0.variables.isEmpty })
        let name = try #require(served.first?.0)
        #expect(after.ups(named: name.uppercased())?.name == name)

        try await second.simulatorServer.setUnreachable(false)
        second.clock.advance(by: .seconds(5))
        await second.exporter.collector.collect()
        let back = after.upsList()
        #expect(back.map(\.name) == served.map(\.0), "the same names once WinPower answers")
        #expect(back.contains { $0.availability == .fresh }, "\(back.map { $0.availability }) \(second.exporter.collector.health)")
    }
}
