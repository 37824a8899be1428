import Testing
import WPTestThreads
@testable import wpexporter

/// The demo's table, rendered from exposition text alone.
@Suite(.ownThreads, .timeLimit(.minutes(3))) struct DemoTableTests {
    /// Device ids and names (one name with a quote and a newline, escaped in the exposition).
    static let devices = [("ups-0001-aaaa", "C3K"), ("ups-0002-bbbb", "C3K"), ("ups-0003-cccc", #"Rack \"B\"\nleft"#),
                          ("ups-0004-dddd", "Bypass")]
    /// (metric without `winpower_device_`, device index, value).
    static let samples: [(String, Int, String)] = [
        ("connected", 0, "1"), ("connected", 1, "1"), ("connected", 2, "0"), ("connected", 3, "1"),
        ("mode", 0, "3"), ("mode", 1, "4"), ("mode", 3, "2"), ("fault", 1, "1"),
        ("load_total_watts", 0, "1234.6"), ("load_percent", 0, "41"), ("battery_capacity", 0, "100"),
        ("battery_remain_seconds", 0, "750"), ("battery_remain_seconds", 3, "3900"),
        ("energy_joules_total", 0, "7200000"), ("energy_joules_total", 3, "1800000"),
    ]
    static let exposition = Array(("""
        # HELP winpower_device_connected 1 when connected.
        # TYPE winpower_device_connected gauge

        """ + samples.map { metric, index, value in
            let (id, name) = devices[index]
            return "winpower_device_\(metric){device_id=\"\(id)\",device_name=\"\(name)\",device_type=\"1\"} \(value)\n"
        }.joined() + "winpower_exporter_device_count 4\n").utf8)

    @Test func everyDeviceGetsARowWithAShortIdAndItsState() {
        let lines = DemoTable.render(Self.exposition).split(separator: "\n", omittingEmptySubsequences: false)
        #expect(lines[0] == "ID       NAME             STATE        LOAD W  LOAD % BATT % RUNTIME  ENERGY kWh")
        #expect(lines[1] == "ups-0001 C3K              line         1235    41     100    12m30s   2.0000")
        #expect(lines[2] == "ups-0002 C3K              fault        -       -      -      -        -")
        #expect(lines[3] == "ups-0003 Rack \"B\" left    disconnected -       -      -      -        -")
        #expect(lines[4] == "ups-0004 Bypass           bypass       -       -      -      1h05m    0.5000")
        #expect(lines.count == 6 && lines[5].isEmpty)
    }

    @Test func wideNamesAreCutAndPaddedByTerminalColumns() throws {
        #expect(DemoTable.columns("C3K") == 3)
        #expect(DemoTable.columns("机房A") == 5)
        #expect(DemoTable.columns("서버실") == 6)
        #expect(DemoTable.columns("e\u{301}") == 1)
        #expect(DemoTable.clipped("一号机房不间断电源系统主机", toColumns: 16) == "一号机房不间断电")
        #expect(DemoTable.clipped("一号机房不间断电源", toColumns: 15) == "一号机房不间断")
        let names = [("ups-0001-aaaa", "一号机房不间断电源系统"), ("ups-0002-bbbb", "서버실 UPS"), ("ups-0003-cccc", "C3K")]
        let exposition = Array(names.map { id, name in
            "winpower_device_connected{device_id=\"\(id)\",device_name=\"\(name)\",device_type=\"1\"} 0\n"
        }.joined().utf8)
        let lines = DemoTable.render(exposition).split(separator: "\n")
        // Every STATE column starts at the same terminal column as the header's.
        let stateColumn = DemoTable.columns(String(lines[0].prefix { $0 != "S" }))
        for line in lines.dropFirst() {
            let state = try #require(line.firstRange(of: "disconnected"))
            #expect(DemoTable.columns(String(line[..<state.lowerBound])) == stateColumn, "\(line)")
        }
    }

    @Test func statesFollowTheOperatingModeUnlessDisconnectedOrFaulted() {
        func state(_ values: [String: Double]) -> String { DemoTable.Row(id: "x", name: "x", values: values).state }
        #expect(state(["connected": 1, "mode": 5]) == "battery test")
        #expect(state(["connected": 1, "mode": 4]) == "battery")
        #expect(state(["connected": 1, "mode": 4, "fault": 1]) == "fault")
        #expect(state(["connected": 0, "mode": 3]) == "disconnected")
        #expect(state(["connected": 1, "mode": 42]) == "mode 42")
        #expect(state(["connected": 1, "on_battery": 1]) == "battery")
        #expect(state([:]) == "-")
    }

    @Test func shortIDsTellDevicesApart() {
        #expect(DemoTable.shortIDs(["ups-0001-aaaa", "ups-0002-bbbb"]) == ["ups-0001", "ups-0002"])
        #expect(DemoTable.shortIDs(["5e1a7a0c-0000-0001", "5e1a7a0c-0000-0002"]) == ["…00-0001", "…00-0002"])
        #expect(DemoTable.shortIDs(["abcdefgh-1-stuvwxyz", "abcdefgh-2-stuvwxyz"]) == ["abcdefgh-1-stuvwxyz", "abcdefgh-2-stuvwxyz"])
    }

    @Test func durationsAndTotals() {
        #expect(DemoTable.duration(45) == "45s")
        #expect(DemoTable.duration(-1) == "-")
        #expect(DemoTable.duration(.infinity) == "-")
        let total = DemoTable.totalEnergy(Self.exposition)
        #expect(total?.devices == 2)
        #expect(total?.kilowattHours == 2.5)
        #expect(DemoTable.totalEnergy([]) == nil)
    }

    @Test func aTerminalGetsAClearedScreenEachCollectionAPipeOneTableSayingSo() {
        let live = DemoScreen.frame(heading: "HEAD\n", table: "TABLE\n", collectedAt: "10:00:00 UTC", live: true, interval: .seconds(5))
        #expect(live.hasPrefix("\u{1B}[H\u{1B}[2JHEAD\n"))
        #expect(live.contains("redrawn after every collection") && live.contains("TABLE\n") && live.hasSuffix("Press Ctrl-C to stop.\n"))
        let once = DemoScreen.frame(heading: "HEAD\n", table: "TABLE\n", collectedAt: nil, live: false, interval: .seconds(5))
        #expect(!once.contains("\u{1B}") && !once.contains("HEAD") && once.contains("not a terminal, so printed once"))
    }

    @Test func theFarewellSaysWhereTheEnergyWent() {
        #expect(DemoScreen.farewell(exposition: Self.exposition, dataDirectory: "/tmp/d", temporary: true)
            == "wpexporter demo stopped: energy totals (2.5000 kWh over 2 devices) discarded with the temporary directory /tmp/d\n")
        #expect(DemoScreen.farewell(exposition: [], dataDirectory: "/srv/d", temporary: false)
            == "wpexporter demo stopped: energy totals kept in /srv/d\n")
        #expect(DemoScreen.farewell(exposition: [], dataDirectory: "/srv/d", temporary: false, saved: false)
            == "wpexporter demo stopped: energy totals could not be saved in /srv/d\n")
    }
}
