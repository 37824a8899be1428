import Testing
import WPTestThreads
import WPClient
import WPFrontEnd
import WPFrontEndTesting
import WPNUT
import WPNUTFrontEnd
import WPRuntime
import WPTestSupport

/// The NUT server's UPS table from a scripted publication: no exporter, no collector.
@Suite(.ownThreads, .timeLimit(.minutes(2))) struct NUTFleetSourceScriptedTests {
    let clock = ManualClock()
    let onMains = Device.make(id: "ups-id-1", alias: "Rack A")
    let lost = Device.make(id: "ups-id-2", alias: "Rack B", connected: false)

    /// Each UPS under the name the publication gives it, with its description and readings; a
    /// reading goes stale on the fleet's clock once older than its server's window, a
    /// disconnected UPS is stale at once.
    @Test func upsAreServedUnderThePublishedNamesAndGoStaleOnTheFleetsClock() throws {
        let publication = ScriptedPublication(clock: clock)
        let source = NUTFleetSource(publication: publication, settings: NUTBridgeSettings(), version: "1")
        #expect(source.upsList().isEmpty)
        publication.publish([.scripted(name: "site-a", devices: [onMains, lost], readAt: clock.now,
                                       names: [onMains.id: "rack-a", lost.id: "rack-b"], stalenessWindow: .seconds(15))])
        let listed = source.upsList()
        #expect(listed.map(\.name) == ["rack-a", "rack-b"])
        #expect(listed.first?.description == "Rack A (ON-LINE) on site-a")
        #expect(listed.first?.value(of: "ups.status") == "OL CHRG")
        #expect(listed.map(\.availability) == [.fresh, .stale])
        #expect(source.ups(named: "RACK-A")?.name == "rack-a", "any case, as upsd")
        clock.advance(by: .seconds(15))
        #expect(source.ups(named: "rack-a")?.availability == .fresh)
        clock.advance(by: .seconds(1))
        #expect(source.ups(named: "rack-a")?.availability == .stale, "older than the window, with no new publication")
    }

    /// A device the publication names nothing (its name taken elsewhere) is not served; the UPSs
    /// a server served before the start are listed with no readings, as upsd with its driver down.
    @Test func unnamedDevicesAreLeftOutAndRememberedOnesWaitForTheirDriver() {
        let publication = ScriptedPublication(clock: clock)
        let source = NUTFleetSource(publication: publication, settings: NUTBridgeSettings(), version: "1")
        var server = FleetState<ManualClock>.Server.scripted(devices: [onMains, lost], readAt: clock.now,
                                                             names: [onMains.id: "rack-a"], lastSuccess: .some(nil))
        server.names[lost.id] = nil
        server.remembered = [RememberedUPS(device: "ups-id-9", name: "old-ups", description: "Old (C3K)")]
        publication.publish([server])
        let listed = source.upsList()
        #expect(listed.map(\.name) == ["rack-a", "old-ups"])
        let remembered = listed.last
        #expect(remembered?.availability == .driverNotConnected)
        #expect(remembered?.variables.isEmpty == true)
        #expect(remembered?.description == "Old (C3K)")
    }

    /// A publication older than the one kept (a late delivery) changes nothing.
    @Test func anOlderPublicationIsIgnored() {
        let publication = ScriptedPublication(clock: clock)
        let source = NUTFleetSource(publication: publication, settings: NUTBridgeSettings(), version: "1")
        let older = publication.publish([.scripted(devices: [onMains], readAt: clock.now, names: [onMains.id: "first"])])
        publication.publish([.scripted(devices: [onMains], readAt: clock.now, names: [onMains.id: "second"])])
        #expect(source.upsList().map(\.name) == ["second"])
        publication.deliver(older)
        #expect(source.upsList().map(\.name) == ["second"], "generation \(older.generation) came after a newer one")
    }

    /// `nut.default_ups`: the alias `ups` reaches the device it names (by id or name) under its
    /// own name, and is not listed twice.
    @Test func theDefaultAliasReachesItsDevice() {
        let publication = ScriptedPublication(clock: clock)
        var settings = NUTBridgeSettings()
        settings.defaultUPS = (alias: "ups", device: lost.id)
        settings.deviceThresholds = [onMains.id: NUTThresholds(chargeLow: 55, runtimeLow: 600)]
        let source = NUTFleetSource(publication: publication, settings: settings, version: "1")
        publication.publish([.scripted(devices: [onMains, lost], readAt: clock.now,
                                       names: [onMains.id: "rack-a", lost.id: "rack-b"])])
        #expect(source.ups(named: "UPS")?.name == "rack-b")
        #expect(!source.upsList().map(\.name).contains("ups"))
        #expect(source.ups(named: "rack-a")?.value(of: "battery.charge.low") == "55")
        #expect(source.ups(named: "rack-a")?.value(of: "battery.runtime.low") == "600")
    }
}
