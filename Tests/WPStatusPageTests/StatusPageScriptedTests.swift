import Foundation
import Testing
import WPTestThreads
import WPClient
import WPEnergy
import WPFrontEnd
import WPFrontEndTesting
import WPRuntime
import WPHistory
import WPStatusPage
import WPTestSupport
import WPWallClock

/// The status pages' model from a scripted publication: no exporter, no collector, no meter.
@Suite(.ownThreads, .timeLimit(.minutes(2))) struct StatusPageScriptedTests {
    let clock = ManualClock()
    let wall = Date(timeIntervalSince1970: 1_795_680_000)
    let onMains = Device.make(id: "ups-id-1", alias: "Rack A", watts: 300)
    let onBattery = Device.make(id: "ups-id-2", alias: "Rack B", watts: 400, mode: 4, status: 2)

    /// The UPSs in attention order (on battery first), their state and energy from the
    /// publication's served totals, the server's health.
    @Test func rowsFollowThePublicationInAttentionOrder() throws {
        let publication = ScriptedPublication(clock: clock)
        let page = StatusPage(publication: publication, wallClock: WallClock { [wall] in wall })
        #expect(page.model.ups.isEmpty)
        publication.publish([.scripted(name: "site-a", devices: [onMains, onBattery], readAt: clock.now,
                                       totals: [onMains.id: DeviceEnergy(joules: 7_200_000)])])
        let model = page.model
        #expect(model.ups.map(\.deviceID) == [onBattery.id, onMains.id])
        #expect(model.ups.map(\.state) == [.battery, .mains])
        #expect(model.ups.last?.energyKilowattHours == 2)
        #expect(model.ups.first?.energyKilowattHours == nil, "no total served for it")
        #expect(model.servers.map(\.name) == ["site-a"])
        #expect(model.servers.first?.healthy == true)
        #expect(page.trackedCount == 2)
    }

    /// Readings older than their server's window when a publication comes are shown stale, and
    /// the server unhealthy: judged at the publication's instant on the fleet's clock.
    @Test func oldReadingsAreStaleAtThePublication() {
        let publication = ScriptedPublication(clock: clock)
        let page = StatusPage(publication: publication, wallClock: WallClock { [wall] in wall })
        let read = clock.now
        publication.publish([.scripted(devices: [onMains], readAt: read, stalenessWindow: .seconds(15))])
        #expect(page.model.ups.map(\.state) == [.mains])
        clock.advance(by: .seconds(16))
        publication.publish([.scripted(devices: [onMains], readAt: read, stalenessWindow: .seconds(15))])
        #expect(page.model.ups.map(\.state) == [.stale])
        #expect(page.model.servers.first?.healthy == false)
    }
}

/// A UPS page's `/metrics` lines are found under the label values as the exposition writes them.
@Suite(.ownThreads, .timeLimit(.minutes(2))) struct StatusExpositionIndexTests {
    /// Escaped as `/metrics` escapes them, a bidirectional control replaced as there: the
    /// lines of a device whose id holds one are still found.
    @Test func linesAreFoundUnderTheExpositionsEscaping() {
        let text = """
            # HELP winpower_device_load_total_watts Load.
            winpower_device_load_total_watts{server="a\\"b",device_id="ups-\u{FFFD}1"} 300
            winpower_device_load_total_watts{server="a\\"b",device_id="ups-2"} 200
            winpower_device_load_total_watts{device_id="ups-2"} 100

            """
        let index = StatusExpositionIndex(text: Array(text.utf8))
        #expect(index.lines(server: "a\"b", device: "ups-\u{202E}1", limit: 10)
                == ["winpower_device_load_total_watts{server=\"a\\\"b\",device_id=\"ups-\u{FFFD}1\"} 300"])
        #expect(index.lines(server: "", device: "ups-2", limit: 10) == ["winpower_device_load_total_watts{device_id=\"ups-2\"} 100"])
        #expect(index.lines(server: "a\"b", device: "ups-2", limit: 0).isEmpty)
    }
}

/// The journal's CSV: fields quoted where they must be, no formula a spreadsheet would run.
@Suite(.ownThreads, .timeLimit(.minutes(2))) struct StatusEventsCSVTests {
    @Test func fieldsAreQuotedAndNeverFormulas() {
        let events = [HistoryEvent(time: 1_793_491_200, server: "room, \"A\"", device: "ups-1", kind: .alarmRaised, code: "0x21",
                                   detail: "=HYPERLINK(\"http://x\")"),
                      HistoryEvent(time: 1_793_491_100, server: "", kind: .exporterStarted, detail: "wpexporter 0.3.0")]
        let text = String(decoding: StatusRender.eventsCSV(events), as: UTF8.self)
        #expect(text == "time,server,device_id,kind,code,detail\r\n"
                + "2026-11-01T00:00:00Z,\"room, \"\"A\"\"\",ups-1,alarm_raised,0x21,\"'=HYPERLINK(\"\"http://x\"\")\"\r\n"
                + "2026-10-31T23:58:20Z,,,exporter_started,,wpexporter 0.3.0\r\n")
    }
}
