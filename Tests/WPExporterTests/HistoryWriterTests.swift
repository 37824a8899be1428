import WPText
import Foundation
import Testing
import WPTestThreads
import WPClient
import WPCollector
import WPCompression
import WPConfig
import WPFrontEnd
import WPHistory
import WPLogging
import WPRuntime
import WPServer
import WPSimulator
import WPStatusPage
import WPTestSupport
@testable import WPExporter

/// The history writer in the exporter: each UPS's readings in 5-minute slots in `history.db`,
/// written by its own thread; a file it cannot use costs nothing but the history.
@Suite(.ownThreads, .timeLimit(.minutes(4))) struct HistoryWriterTests {
    static func writer(_ exporter: Exporter<ManualClock>) -> HistoryWriter<ManualClock>? {
        exporter.frontEnds.lazy.compactMap { $0 as? HistoryWriter<ManualClock> }.first
    }

    /// Collections every minute: once a UPS's readings reach the next 5-minute slot, its slot is
    /// in the database (its samples, load and charge), `/health` and `/metrics` say so.
    @Test func finishedSlotsAreWrittenToTheDataDirectory() async throws {
        let harness = try await ExporterHarness(devices: 2)
        let writer = try #require(Self.writer(harness.exporter))
        #expect(writer.path == harness.dataDirectory + "/history.db")
        for minute in 0...5 {
            if minute > 0 { harness.clock.advance(by: .seconds(60)) }
            await harness.exporter.collector.collect()
        }
        await ServersHarness.until("two slots written") { writer.current.slotsWritten >= 2 }
        #expect(writer.current.state == "ok" && writer.current.failures == 0)
        let store = try HistoryStore(path: writer.path, readOnly: true)
        let devices = harness.exporter.collector.devices.readings.map(\.device.id)
        #expect(devices.count == 2)
        for device in devices {
            let slots = try store.slots(of: HistoryUPS(server: "", device: device), tier: .fiveMinutes, from: 0, to: .max)
            let slot = try #require(slots.first, "no slot of \(device)")
            #expect(slots.count == 1)
            #expect(slot.samples == 5, "the readings at 0, 60, 120, 180 and 240 s")
            #expect(slot.mean(.loadWatts) != nil && slot.mean(.batteryCharge) != nil)
            #expect(slot.mode.flatMap(OperatingMode.init(code:)) != nil, "the operating mode of its last reading: \(String(describing: slot.mode))")
            #expect(try store.slots(of: HistoryUPS(server: "", device: device), tier: .hour, from: 0, to: .max).first?.samples == 5)
        }
        let health = try await harness.get("/health").text
        #expect(health.contains("\"history\":{"), "\(health)")
        let metrics = try await harness.scrape()
        #expect(metrics["winpower_exporter_history_slots_written_total"] == 2)
        #expect(metrics["winpower_exporter_history_available"] == 1)
        await harness.shutdown()
    }

    /// `/status/history.json` and `.csv` answer from the database: the slots written, in the
    /// step the range asks for; bad requests get a 400 that says what was wrong.
    @Test func theHistoryAPIAnswersFromTheDatabase() async throws {
        let harness = try await ExporterHarness(devices: 2)
        let writer = try #require(Self.writer(harness.exporter))
        await harness.exporter.collector.collect()
        let device = try #require(harness.exporter.collector.devices.readings.first?.device.id)
        let before = try await harness.get("/status/history.json?device=\(device)")
        #expect(before.status == 200 && before.text.contains("\"points\":[]"), "published, nothing written yet: \(before.text)")
        for _ in 1...5 {
            harness.clock.advance(by: .seconds(60))
            await harness.exporter.collector.collect()
        }
        await ServersHarness.until("two slots written") { writer.current.slotsWritten >= 2 }

        let json = try await harness.get("/status/history.json?device=\(device)&range=24h")
        #expect(json.status == 200, "\(json.text)")
        let document = try #require(try JSONSerialization.jsonObject(with: Data(json.text.utf8)) as? [String: Any])
        #expect(document["device_id"] as? String == device && document["step"] as? String == "5m")
        let points = try #require(document["points"] as? [[String: Any]])
        #expect(points.count == 1)
        #expect(points.first?["samples"] as? Int == 5)
        let load = try #require(points.first?["load_w"] as? Double)
        #expect(try #require(points.first?["load_w_min"] as? Double) <= load && load <= (points.first?["load_w_max"] as? Double ?? -1))
        let daily = try await harness.get("/status/history.json?device=\(device)&range=1y")
        #expect(daily.text.contains("\"step\":\"1d\"") && daily.text.contains("\"samples\":5"), "\(daily.text)")
        let csv = try await harness.get("/status/history.csv?device=\(device)&range=7d")
        let lines = csv.text.split(separator: "\r\n")
        #expect(csv.status == 200 && lines.first?.hasPrefix("start,samples,load_w,load_w_min,load_w_max,") == true, "\(csv.text)")
        #expect(lines.count == 2 && lines[1].split(separator: ",", omittingEmptySubsequences: false)[1] == "5", "one hourly slot of 5 samples")

        let page = try await harness.get("/status/ups?device=\(device)&range=30d")
        #expect(page.text.contains("href=\"/status/history.csv?device=\(device)&amp;range=30d\"")
                && page.text.contains("href=\"/status/events.json?device=\(device)&amp;range=30d\""),
                "the UPS page links its history and events over the range it shows")
        let long = String(repeating: "x", count: 10_240)
        for (query, says) in [("", "`device` is required"),
                              ("device=nope", "unknown device \"nope\": not published now and not in the history"),
                              ("device=\(long)", "parameter `device` is 10240 bytes long; at most 256"),
                              ("device=\(device)&from=2026-11-02&to=2026-11-01", "is not before `to`"),
                              ("device=\(device)&range=60d&step=5m", "5-minute slots are kept for 30 days (history.retention_days)"),
                              ("device=\(device)&range=10y", "daily slots are kept for 1830 days (history.daily_retention_days)"),
                              ("device=\(device)&range=7d&step=5m", "that is 2017 points of 5m; at most 2000"),
                              ("device=\(device)&range=fortnight", "`range` \"fortnight\" is not 24h, 7d, 30d, 1y")] {
            let answer = try await harness.get("/status/history.json?" + query)
            #expect(answer.status == 400 && answer.text.contains(says), "\(query.prefix(60)): \(answer.status) \(answer.text.prefix(200))")
        }
        await harness.shutdown()
    }

    /// The journal records an outage as it is seen: on battery with the alarm WinPower raises,
    /// then mains back and the alarm cleared; the normal conditions of the first reading
    /// (on mains, fresh) are not recorded.
    @Test func anOutageIsJournaled() async throws {
        let harness = try await ExporterHarness(devices: 1, configure: { simulator in
            simulator.outageSchedule = [OutageWindow(device: 0, start: 10, length: 20)]
        })
        let writer = try #require(Self.writer(harness.exporter))
        for advance in [0, 15, 25] {  // on mains, on battery (10–30 s), back
            harness.clock.advance(by: .seconds(advance))
            await harness.exporter.collector.collect()
        }
        await ServersHarness.until("the outage journaled") { writer.current.eventsWritten >= 5 }
        let path = writer.path
        let device = try #require(harness.simulator.devices.first?.id)
        // The events API: the UPS's, newest first, filtered by kind; CSV with the same rows.
        let json = try await harness.get("/status/events.json?device=\(device)&kind=on_battery,mains_back")
        #expect(json.status == 200, "\(json.text)")
        let document = try #require(try JSONSerialization.jsonObject(with: Data(json.text.utf8)) as? [String: Any])
        let kinds = (document["events"] as? [[String: Any]])?.compactMap { $0["kind"] as? String }
        #expect(kinds == ["mains_back", "on_battery"])
        let csv = try await harness.get("/status/events.csv?range=1h&limit=2")
        let lines = csv.text.split(separator: "\r\n")
        #expect(lines.first == "time,server,device_id,kind,code,detail" && lines.count == 3, "\(csv.text)")
        #expect(lines.dropFirst().first?.contains(",alarm_cleared,") == true, "newest first: \(csv.text)")
        for (query, says) in [("kind=outage", "`kind` \"outage\" is not one of on_battery, mains_back"),
                              ("limit=5000", "`limit` \"5000\" is not a number from 1 to 1000"),
                              ("device=nope", "unknown device \"nope\""),
                              ("server=site-a", "`server` needs `device`")] {
            let answer = try await harness.get("/status/events.json?" + query)
            #expect(answer.status == 400 && answer.text.contains(says), "\(query): \(answer.status) \(answer.text)")
        }
        await harness.shutdown()
        let store = try HistoryStore(path: path, readOnly: true)
        let events = try store.events(ups: nil, from: 0, to: .max, limit: 100).reversed().map(\.kind)
        #expect(events == [.exporterStarted, .onBattery, .alarmRaised, .mainsBack, .alarmCleared], "\(events)")
        let ups = try store.events(ups: HistoryUPS(server: "", device: device), kinds: [.onBattery], from: 0, to: .max, limit: 10)
        #expect(ups.count == 1 && ups.first?.detail.isEmpty == false)
    }

    /// A UPS page over the range asked for, from the database: the switch marks it, the charts
    /// show each slot's mean with its band and shade the outage, the event list follows its kind
    /// filter, the downloads name the range; a range the API refuses is said in the page.
    @Test func theUPSPageShowsItsRangeFromTheDatabase() async throws {
        let harness = try await ExporterHarness(devices: 1, configure: { simulator in
            simulator.outageSchedule = [OutageWindow(device: 0, start: 310, length: 600)]
        })
        let writer = try #require(Self.writer(harness.exporter))
        // Every 30 s for 20 minutes: on mains, on battery from 310 s to 910 s, back.
        for step in 0...40 {
            if step > 0 { harness.clock.advance(by: .seconds(30)) }
            await harness.exporter.collector.collect()
        }
        await ServersHarness.until("three slots and the outage written") {
            writer.current.slotsWritten >= 3 && writer.current.eventsWritten >= 5
        }
        let device = try #require(harness.simulator.devices.first?.id)
        let page = try await harness.get("/status/ups?device=\(device)&range=24h&lang=en")
        #expect(page.status == 200, "\(page.text.prefix(300))")
        let text = page.text
        #expect(text.contains("range=24h&amp;lang=en\" data-inplace=\"history\" aria-current=\"page\">24 h</a>"), "the range switch marks 24 h")
        for range in ["7d", "30d", "1y"] {
            #expect(text.contains("?device=\(device)&amp;range=\(range)&amp;lang=en\" data-inplace=\"history\">"), "a link to \(range)")
        }
        #expect(text.components(separatedBy: "<figure class=\"chart\">").count - 1 >= 6, "six charts or more")
        #expect(text.contains("<polygon class=\"band\""), "a band from least to greatest")
        #expect(text.contains("<rect class=\"outage\""), "the outage shaded")
        #expect(text.contains("<line class=\"event event-bad\""), "its start marked")
        #expect(text.contains("<td>on battery</td>") && text.contains("<td>mains back</td>"), "the event list in words")
        #expect(text.contains("href=\"/status/history.csv?device=\(device)&amp;range=24h\""), "downloads of the range shown")
        #expect(text.contains("<details class=\"exposition\"><summary>"), "the /metrics lines behind a disclosure")
        #expect(text.contains("<script src=\"/status/status.js\" defer></script>") && text.contains("<noscript><meta http-equiv=\"refresh\""))

        let power = "on_battery,mains_back,low_battery,low_battery_cleared,bypass,bypass_ended"
        let alarms = try await harness.get("/status/ups?device=\(device)&range=24h&kind=alarm_raised,alarm_cleared,fault,fault_cleared")
        #expect(alarms.text.contains("<td>alarm raised</td>") && !alarms.text.contains("<td>on battery</td>"), "only alarms and faults listed")
        #expect(alarms.text.contains("<line class=\"event event-bad\""), "the charts still mark every event")
        #expect(alarms.text.contains("kind=\(power.replacingOccurrences(of: ",", with: "%2C"))&amp;lang=en#events\" data-inplace=\"history\">"),
                "the filters keep the range and link the power events")
        let chinese = try await harness.get("/status/ups?device=\(device)&range=30d&lang=zh")
        #expect(chinese.text.contains("<td>转电池供电</td>") && chinese.text.contains("30 天</a>"))

        for (query, says) in [("range=fortnight", "`range` \"fortnight\" is not 24h, 7d, 30d, 1y"),
                              ("kind=outage", "`kind` \"outage\" is not one of"),
                              ("kind=%3Cb%3Ex", "`kind` \"<b>x\" is not one of"),
                              ("range=" + String(repeating: "9", count: 10_240), "parameter `range` is 10240 bytes long; at most 256")] {
            let answer = try await harness.get("/status/ups?device=\(device)&\(query)")
            #expect(answer.status == 400 && answer.text.contains("<p class=\"problem\">") && answer.text.contains(HTMLEscaping.escape(says)),
                    "\(query.prefix(60)): \(answer.status)")
            #expect(!answer.text.contains("<b>"), "what was asked stays text")
        }
        await harness.shutdown()
    }

    /// `/status` lists the fleet's latest events from the journal (each UPS's linked to its page),
    /// as `/status.json` does for the script; the next process starts its charts and sparklines
    /// from the database's last 24 hours rather than empty.
    @Test func theFleetPageListsTheLatestEventsAndARestartKeepsTheLastDay() async throws {
        let clock = ManualClock()
        let outage: (inout WinPowerSimulator.Configuration) -> Void = { simulator in
            simulator.outageSchedule = [OutageWindow(device: 0, start: 310, length: 600)]
        }
        let first = try await ExporterHarness(devices: 1, clock: clock, configure: outage)
        let writer = try #require(Self.writer(first.exporter))
        for step in 0...40 {
            if step > 0 { clock.advance(by: .seconds(30)) }
            await first.exporter.collector.collect()
        }
        await ServersHarness.until("slots and the outage written") { writer.current.slotsWritten >= 3 && writer.current.eventsWritten >= 5 }
        let device = try #require(first.simulator.devices.first?.id)
        let page = try await first.get("/status?lang=en").text
        let latest = try #require(page.components(separatedBy: "<table id=\"latest-events\" class=\"cards\">").dropFirst().first)
        #expect(latest.contains("<td data-label=\"Event\">on battery</td>") && latest.contains("<td data-label=\"Event\">mains back</td>"))
        #expect(latest.contains("<a href=\"/status/ups?device=\(device)&amp;lang=en\">"), "each UPS's event links its page")
        #expect(latest.contains("<td data-label=\"UPS\">wpexporter</td>"), "the exporter's start, named")
        let json = try #require(try JSONSerialization.jsonObject(with: Data(try await first.get("/status.json").text.utf8)) as? [String: Any])
        let kinds = (json["events"] as? [[String: Any]])?.compactMap { $0["kind"] as? String } ?? []
        #expect(kinds.first == "alarm_cleared" && kinds.contains("on_battery") && kinds.last == "exporter_started", "\(kinds)")
        let slotsBefore = try #require(first.exporter.statusPage.history(server: "", device: device)).count
        #expect(slotsBefore >= 4)
        await first.shutdown()

        clock.advance(by: .seconds(60))
        let second = try await ExporterHarness(devices: 1, dataDirectory: first.dataDirectory, clock: clock, configure: outage)
        await second.exporter.collector.collect()
        // The slots the first process wrote, and the reading just taken.
        await ServersHarness.until("the last day read back") {
            (second.exporter.statusPage.history(server: "", device: device)?.count ?? 0) >= 4
        }
        let json2 = try #require(try JSONSerialization.jsonObject(with: Data(try await second.get("/status.json").text.utf8)) as? [String: Any])
        let load = ((json2["ups"] as? [[String: Any]])?.first?["spark"] as? [String: Any])?["load"] as? [Any] ?? []
        #expect(load.compactMap { $0 as? Int }.count >= 1, "the sparkline drawn from what the database kept: \(load)")
        await second.shutdown()
    }

    /// A refused configuration is journaled by the keys its reason names, never by the values
    /// it quotes (a refused file's secrets are not the running ones the log masks).
    @Test func aRefusalIsJournaledByItsKeysNotItsValues() {
        let reason = "winpower.password: \"hunter2.secret\" is not allowed here; history.retention_days: -1 is below 1; "
            + "line 3: mapping values are not allowed (pass.word: zz.yy)"
        let journaled = HistoryWriter<ManualClock>.refusal(reason)
        #expect(journaled == "the configuration was refused (winpower.password, history.retention_days); the log says why")
        #expect(HistoryWriter<ManualClock>.refusal("cannot read /etc/wp.yml") == "the configuration was refused; the log says why")
    }

    /// An upgrade from 0.3.0: its data directory (a version 3 state file, no history.db) keeps
    /// every energy total; the history starts beside it, its journal with the exporter's start.
    @Test func anUpgradeFrom030KeepsTheTotalsAndStartsTheHistory() async throws {
        let directory = temporaryPathRemovedAtExit("wpexporter-history-upgrade")
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let device = SimulatedDevice(index: 0).id
        let body = "wpexporter-energy-state v3\ngeneration 7\nsaved-at-ms 1763780000000\nlegacy-imported 1\ndevices 1\n"
            + "d 7200000 0 \(device)\n"
        let checksum = String(CRC32.checksum(Array(body.utf8)), radix: 16)
        let file = body + "crc32 " + String(repeating: "0", count: 8 - checksum.count) + checksum + "\n"
        try Data(file.utf8).write(to: URL(fileURLWithPath: directory + "/energy.state"))
        let harness = try await ExporterHarness(devices: 1, dataDirectory: directory)
        let writer = try #require(Self.writer(harness.exporter))
        await harness.exporter.collector.collect()
        let energy = try #require(Exposition.value(try await harness.scrape(), "winpower_device_energy_joules_total", device: device))
        #expect(energy >= 7_200_000, "0.3.0's total kept: \(energy)")
        await ServersHarness.until("the start journaled") { writer.current.state == "ok" }
        let store = try HistoryStore(path: directory + "/history.db", readOnly: true)
        #expect(try store.events(ups: nil, from: 0, to: .max, limit: 10).map(\.kind) == [.exporterStarted])
        await harness.shutdown()
    }

    /// A file that is no database where `history.db` goes: the writer says so once, counts it,
    /// `/health` shows it; collections and `/metrics` go on, and the file is left as it was.
    @Test func aFileItCannotUseCostsOnlyTheHistory() async throws {
        let directory = temporaryPathRemovedAtExit("wpexporter-history-foreign")
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let foreign = Data(repeating: 0x41, count: 8_192)
        try foreign.write(to: URL(fileURLWithPath: directory + "/history.db"))
        let harness = try await ExporterHarness(devices: 1, dataDirectory: directory)
        let writer = try #require(Self.writer(harness.exporter))
        for minute in 0...10 {
            if minute > 0 { harness.clock.advance(by: .seconds(60)) }
            await harness.exporter.collector.collect()
        }
        await ServersHarness.until("two failed writes") { writer.current.failures >= 2 }
        #expect(writer.current.state == "failing")
        #expect(writer.current.lastError?.contains(directory + "/history.db") == true, "\(writer.current)")
        let warnings = harness.logs.records.map(\.message).filter { $0.contains("the history database cannot be written") }
        #expect(warnings.count == 1, "said once, not at every write: \(warnings)")
        let metrics = try await harness.scrape()
        #expect(metrics["winpower_exporter_history_available"] == 0)
        #expect((metrics["winpower_exporter_history_write_failures_total"] ?? 0) >= 2)
        #expect(metrics["winpower_exporter_up"] == 1, "collections go on")
        #expect(try Data(contentsOf: URL(fileURLWithPath: directory + "/history.db")) == foreign)
        await harness.shutdown()
    }

    /// A reload that changes `history.*` makes the writer again; one that also moves
    /// `storage.data_dir` leaves it in the directory the running exporter holds (the new one
    /// takes effect at the next start, for the history as for the energy store).
    @Test func aReloadMakesTheWriterAgainInTheDirectoryTheExporterHolds() async throws {
        let harness = try await ExporterHarness(devices: 1)
        let first = try #require(Self.writer(harness.exporter))
        await ServersHarness.until("the start journaled") { first.current.eventsWritten >= 1 }
        var next = harness.exporter.configuration
        next[section: HistorySettings.self].retentionDays = 10
        next.storage.dataDirectory = harness.dataDirectory + "-elsewhere"
        let applied = try await harness.exporter.apply(next)
        #expect(applied.needsRestart == ["storage"], "\(applied.needsRestart)")
        #expect(applied.summary.contains("restarted history"), "\(applied.summary)")
        let second = try #require(Self.writer(harness.exporter))
        #expect(second !== first)
        #expect(second.path == harness.dataDirectory + "/history.db")
        #expect(harness.exporter.configuration[section: HistorySettings.self].retentionDays == 10)
        #expect(harness.exporter.configuration.storage.dataDirectory == harness.dataDirectory)
        var refused = harness.exporter.configuration
        refused[section: HistorySettings.self].retentionDays = -1
        await #expect(throws: ReloadRefusal.self) { try await harness.exporter.apply(refused) }
        // The journal: the start, the reload with its summary (its successor journals no start),
        // the refused one with why.
        let store = try HistoryStore(path: second.path, readOnly: true)
        await ServersHarness.until("both reloads journaled") {
            ((try? store.events(ups: nil, kinds: [.configurationRefused], from: 0, to: .max, limit: 1)) ?? []).count == 1
        }
        let events = try store.events(ups: nil, from: 0, to: .max, limit: 10).reversed()
        #expect(events.map(\.kind) == [.exporterStarted, .reloaded, .configurationRefused], "\(events.map(\.kind)) \(second.current)")
        #expect(second.current.failures == 0, "the successor's first write, the schema made meanwhile by the first writer: \(second.current)")
        #expect(events.first { $0.kind == .reloaded }?.detail.contains("restarted history") == true)
        #expect(events.first { $0.kind == .configurationRefused }?.detail.contains("history.retention_days") == true,
                "\(events.map(\.detail))")
        await harness.shutdown()
    }

    /// `history.enabled: false`, or energy kept in memory (no data directory): no writer.
    @Test func offWithoutADataDirectoryOrWhenDisabled() async throws {
        let disabled = try await ExporterHarness(devices: 1, configureExporter: { $0[section: HistorySettings.self].enabled = false })
        #expect(Self.writer(disabled.exporter) == nil)
        await disabled.shutdown()
        let inMemory = try await ExporterHarness(devices: 1, energyStorage: .memory)
        #expect(Self.writer(inMemory.exporter) == nil)
        await inMemory.shutdown()
    }
}
