import FoundationEssentials
import Testing
import WPTestThreads
import WPClient
import WPFrontEnd
import WPFrontEndTesting
import WPRuntime
import WPSNMP
import WPSNMPFrontEnd
import WPTestSupport
import WPWallClock

/// The SNMP agent's UPS-MIB views from a scripted publication: no exporter, no collector.
@Suite(.ownThreads, .timeLimit(.minutes(2))) struct SNMPFleetSourceScriptedTests {
    let clock = ManualClock()
    let onMains = Device.make(id: "ups-id-1", alias: "Rack A")
    let onBattery = Device.make(id: "ups-id-2", alias: "Rack B", mode: 4)
    let unnamed = Device.make(id: "ups-id-3", alias: "Rack C")

    func source(defaultUPS: String? = nil) -> SNMPFleetSource<ManualClock> {
        SNMPFleetSource(system: SystemGroup(description: "wpexporter test", name: "agent"), defaultUPS: defaultUPS,
                        version: "1", lowBatteryTime: 120, clock: clock, wallClock: .fixed(Date(timeIntervalSince1970: 1_760_000_000)))
    }

    func published(_ source: SNMPFleetSource<ManualClock>) -> ScriptedPublication<ManualClock> {
        let publication = ScriptedPublication(clock: clock)
        publication.subscribe { source.rebuild($0) }
        var server = FleetState<ManualClock>.Server.scripted(name: "site-a", devices: [onMains, onBattery, unnamed], readAt: clock.now,
                                                             names: [onMains.id: "rack-a", onBattery.id: "rack-b"])
        server.names[unnamed.id] = nil
        publication.publish([server])
        return publication
    }

    /// Each UPS the publication names has a view, selected by its name (any case) or device id;
    /// no context selects the default UPS (`snmp.default_ups`, else the first); a device the
    /// publication names nothing has none. What the UPS reads is in its values.
    @Test func viewsAreSelectedByThePublishedNames() throws {
        let source = source(defaultUPS: "ups-id-2")
        _ = published(source)
        let values = source.upsValues()
        #expect(values.map(\.name) == ["rack-a", "rack-b"])
        let battery = try #require(values.last?.values)
        #expect(battery.outputSource == .battery)
        #expect(battery.alarms.map(\.alarm) == [.onBattery])
        #expect(values.first?.values.outputSource == .normal)
        #expect(source.view(context: "RACK-B") != nil)
        #expect(source.view(context: onMains.id) != nil)
        #expect(source.view(context: unnamed.id) == nil && source.view(context: "rack-c") == nil)
        let byDefault = try #require(source.view(context: ""))
        let name = byDefault.get(UPSMIB.Ident.name.appending(0))
        #expect(name == .octetString(Array("rack-b".utf8)), "\(name)")
    }

    /// Readings older than their server's staleness window are served as lost communications,
    /// on the fleet's clock with no new publication.
    @Test func readingsGoStaleOnTheFleetsClock() throws {
        let source = source()
        _ = published(source)
        #expect(source.upsValues().first?.values.alarms.map(\.alarm) == [])
        clock.advance(by: .seconds(16))
        let stale = try #require(source.upsValues().first?.values)
        #expect(stale.alarms.map(\.alarm) == [.communicationsLost], "\(stale.alarms)")
        #expect(stale.outputSource == nil)
    }
}
