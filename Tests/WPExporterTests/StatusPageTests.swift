import WPText
import WPTime
import Foundation
import Testing
import WPCollector
import WPClient
import WPCompression
import WPEnergy
import WPConfig
import WPLogging
import WPRuntime
import WPServer
import WPSimulator
import WPStatusPage
import WPStorage
import WPTestSupport
import WPTestThreads
@testable import WPExporter
import WPWallClock

/// The status pages (`/status`, `/status.json`, a page per UPS, its outages) through the
/// exporter's listener, against the simulator on a manual clock.
@Suite("Status pages", .ownThreads, .timeLimit(.minutes(5)))
struct StatusPageTests {
    /// Markup, quotes and 10 KB: a UPS alias is user input.
    static let hostile = "<script>alert(\"x\")</script>' onmouseover='y' &amp;" + String(repeating: "<b>é", count: 2500)

    /// Three devices (the simulator's device 0 is on mains, 1 on battery, 2 disconnected), device 0
    /// named `hostile` and, with `outage`, on battery from 10 s for that many seconds; collected
    /// every 5 s up to `until` seconds.
    static func harness(outage: Double? = nil, until: Int = 30,
                        webSecurity: WebSecurity = .none) async throws -> ExporterHarness {
        let harness = try await ExporterHarness(devices: 3, configure: { simulator in
            simulator.alias = hostile
            simulator.outageSchedule = outage.map { [OutageWindow(device: 0, start: 10, length: $0)] } ?? []
        }, configureExporter: { $0.winPower.maxTextBytes = 16_384 }, webSecurity: webSecurity)
        for _ in stride(from: 0, through: until, by: 5) {
            await harness.exporter.collector.collect()
            harness.clock.advance(by: .seconds(5))
        }
        await harness.exporter.collector.collect()
        return harness
    }

    static func id(_ index: Int) -> String { SimulatedDevice(index: index).id }

    /// The device ids in the order `/status` lists its rows.
    static func rowOrder(_ page: String) -> [String] {
        page.components(separatedBy: "<tr class=\"state-").dropFirst().compactMap { row in
            row.range(of: "device=").map { String(row[$0.upperBound...].prefix(36)) }
        }
    }

    @Test func everyUPSIsListedTheOneOnBatteryFirstAndMarked() async throws {
        let harness = try await Self.harness()
        let page = try await harness.get("/status")
        #expect(page.status == 200)
        #expect(page.header("Content-Type") == "text/html; charset=utf-8")
        let order = Self.rowOrder(page.text)
        #expect(Set(order) == Set((0..<3).map(Self.id)), "every UPS named once: \(order)")
        #expect(order.count == 3)
        #expect(order.first == Self.id(1), "the UPS on battery first")
        #expect(page.text.contains("<tr class=\"state-battery attention\"><td class=\"name\"><a href=\"/status/ups?device=\(Self.id(1))"))
        #expect(page.text.contains("<span class=\"badge\">on battery</span>"))
        let json = try #require(try JSONSerialization.jsonObject(with: Data(try await harness.get("/status.json").body)) as? [String: Any])
        let ups = try #require(json["ups"] as? [[String: Any]])
        #expect(ups.map { $0["device_id"] as? String } == order)
        #expect(ups.first?["state"] as? String == "battery" && ups.first?["attention"] as? Bool == true)
        #expect(try await harness.get("/").text.contains("<a href=\"/status\">"), "the home page links to it")
        await harness.shutdown()
    }

    @Test func aHostileAliasIsShownAsText() async throws {
        let harness = try await Self.harness()
        let device = Self.id(0)
        for path in ["/status", "/status?lang=zh", "/status/ups?device=\(device)"] {
            let page = try await harness.get(path)
            #expect(page.status == 200, "\(path)")
            #expect(!page.text.contains("<script>alert"), "\(path): the alias is not markup")
            #expect(!page.text.contains("<b>"), "\(path)")
            #expect(!page.text.contains("' onmouseover"), "\(path)")
            #expect(page.text.contains("&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;&#39; onmouseover=&#39;y&#39; &amp;amp;"),
                    "\(path): escaped, whole")
            #expect(page.text.contains(String(repeating: "&lt;b&gt;é", count: 2500)), "\(path): 10 KB shown, not cut")
            // Only the page's own script, from the exporter.
            #expect(page.text.components(separatedBy: "<script").count <= 2, "\(path)")
        }
        let json = try await harness.get("/status.json")
        let ups = try #require((try JSONSerialization.jsonObject(with: Data(json.body)) as? [String: Any])?["ups"] as? [[String: Any]])
        #expect(ups.contains { $0["name"] as? String == Self.hostile }, "JSON carries the text as it is, for textContent")
        await harness.shutdown()
    }

    @Test func everyStatusResponseCarriesTheContentSecurityPolicy() async throws {
        let harness = try await Self.harness(until: 0)
        let device = Self.id(0)
        for path in ["/status", "/status.json", "/status/ups?device=\(device)", "/status/ups?device=nope",
                     "/status/outages.csv?device=\(device)", "/status/outages.json?device=\(device)",
                     "/status/style.css", "/status/status.js"] {
            let response = try await harness.get(path)
            #expect(response.header("Content-Security-Policy") == StatusRoutes.contentSecurityPolicy, "\(path)")
            #expect(response.header("X-Content-Type-Options") == "nosniff", "\(path)")
        }
        let policy = StatusRoutes.contentSecurityPolicy
        #expect(policy.contains("default-src 'none'") && policy.contains("script-src 'self'") && !policy.contains("unsafe"))
        #expect(try await harness.get("/status/ups?device=nope").status == 404)
        #expect(try await harness.get("/status/outages.csv?device=nope").status == 404)
        let page = try await harness.get("/status").text
        #expect(!page.contains("style=") && !page.contains(" onload") && !page.contains(" onclick"), "nothing inline")
        #expect(!page.contains("http://") && !page.contains("https://") || !page.contains("src=\"http"), "nothing external")
        await harness.shutdown()
    }

    @Test func theOutagesDownloadAsCSVAndJSON() async throws {
        // Device 0 on battery from 10 s to 30 s, collected until 45 s: one finished outage.
        let harness = try await Self.harness(outage: 20, until: 45)
        let query = "device=\(Self.id(0))"
        let csv = try await harness.get("/status/outages.csv?\(query)")
        #expect(csv.status == 200)
        #expect(csv.header("Content-Type") == "text/csv; charset=utf-8")
        #expect(csv.header("Content-Disposition")?.hasPrefix("attachment; filename=\"outages-") == true)
        let lines = csv.text.split(separator: "\r\n")
        #expect(lines.first == "start,end,duration_seconds,lowest_battery_percent,energy_on_battery_wh,ongoing")
        #expect(lines.count == 2, "\(csv.text)")
        let fields = lines.last?.split(separator: ",", omittingEmptySubsequences: false) ?? []
        #expect(fields.count == 6 && fields[5] == "false", "\(fields)")
        #expect(fields.count == 6 && !fields[1].isEmpty && Double(fields[2]).map { (15...25).contains($0) } == true,
                "the ledger's end and duration: \(fields)")
        let json = try await harness.get("/status/outages.json?\(query)")
        #expect(json.header("Content-Type") == "application/json")
        let document = try #require(try JSONSerialization.jsonObject(with: Data(json.body)) as? [String: Any])
        #expect(document["device_id"] as? String == Self.id(0))
        #expect(document["name"] as? String == Self.hostile)
        let outages = try #require(document["outages"] as? [[String: Any]])
        #expect(outages.count == 1)
        #expect(outages.first?["ongoing"] as? Bool == false)
        #expect((outages.first?["lowest_battery_percent"] as? Double).map { $0 <= 100 } == true)
        // No outage of device 2 (disconnected).
        #expect(try await harness.get("/status/outages.csv?device=\(Self.id(2))").text.split(separator: "\r\n").count == 1)
        let page = try await harness.get("/status/ups?\(query)")
        #expect(page.text.contains("<table id=\"outages\">"))
        #expect(page.text.contains("<svg xmlns=\"http://www.w3.org/2000/svg\""), "the charts are inline SVG")
        #expect(page.text.contains("<circle class=\"dot\"") || page.text.contains("<polyline class=\"line\""), "with a point")
        let samples = try await harness.scrape()
        #expect(Exposition.value(samples, "winpower_device_outage_duration_seconds_count", device: Self.id(0)) == 1,
                "the ledger saw it end")
        #expect(page.text.contains("winpower_device_load_percent{"), "its readings as /metrics has them")
        await harness.shutdown()
    }

    /// A UPS page says why the UPS needs attention in words: its state, WinPower's alarm texts,
    /// a running self-test; a UPS on mains with nothing to say has no such section.
    @Test func aUPSPageSaysWhyItNeedsAttention() async throws {
        let harness = try await ExporterHarness(devices: 6)
        await harness.exporter.collector.collect()
        let onBattery = try await harness.get("/status/ups?device=\(Self.id(1))&lang=en").text
        #expect(onBattery.contains("<h2>Why it needs attention</h2>"))
        #expect(onBattery.contains("<li>Mains failed: the battery carries the load"))
        let alarms = try #require(harness.exporter.collector.devices.readings.first { $0.device.id == Self.id(1) }?.device.activeAlarms?.alarms)
        #expect(!alarms.isEmpty)
        for alarm in alarms {
            #expect(onBattery.contains("<li>Alarm \(alarm.code ?? "")"), "alarm \(alarm) in words")
            if let name = alarm.name { #expect(onBattery.contains(HTMLEscaping.escape(name))) }
        }
        let testing = try await harness.get("/status/ups?device=\(Self.id(4))&lang=en").text
        #expect(testing.contains("<li>A battery self-test is running"), "\(testing.prefix(2_000))")
        let chinese = try await harness.get("/status/ups?device=\(Self.id(1))&lang=zh").text
        #expect(chinese.contains("<h2>需要处理的原因</h2>") && chinese.contains("<li>市电中断"))
        let mains = try await harness.get("/status/ups?device=\(Self.id(0))&lang=en").text
        #expect(!mains.contains("class=\"reasons\""), "nothing to say on mains")
        await harness.shutdown()
    }

    /// The configured battery on the UPS page: its installation day and age, its replace-by day,
    /// and a reason when it is due within 30 days or past it (the wall clock is 2025-10-13).
    @Test func aUPSPageShowsItsBatteryAndSaysWhenItIsDue() async throws {
        let harness = try await ExporterHarness(devices: 3, configureExporter: { configuration in
            configuration.winPower.devices.battery = DeviceSelection.Battery(installed: "2021-10-20")   // due 2025-10-20
            configuration.winPower.devices.overrides = [
                Self.id(0): .init(battery: DeviceSelection.Battery(installed: "2021-09-01")),           // due 2025-09-01: past
                Self.id(1): .init(battery: DeviceSelection.Battery(life: "10y")),                       // 2021-10-20 + 10y
            ]
        })
        await harness.exporter.collector.collect()
        let past = try await harness.get("/status/ups?device=\(Self.id(0))&lang=en").text
        #expect(past.contains("<tr><th>Battery installed</th><td>2021-09-01 (4.1 years)</td></tr>"))
        #expect(past.contains("<tr><th>Replace battery by</th><td class=\"due\">2025-09-01 (4y)</td></tr>"))
        #expect(past.contains("<li>The battery is past its replacement day, 2025-09-01</li>"))
        let soon = try await harness.get("/status/ups?device=\(Self.id(2))&lang=zh").text
        #expect(soon.contains("<li>电池应在 2025-10-20 前更换</li>"), "\(soon.prefix(3_000))")
        let later = try await harness.get("/status/ups?device=\(Self.id(1))&lang=en").text
        #expect(later.contains("<td>2031-10-20 (10y)</td>") && !later.contains("replacement"))
        await harness.shutdown()
    }

    @Test func theLanguageFollowsAcceptLanguageAndTheSwitch() async throws {
        let harness = try await Self.harness(until: 15)
        let chinese = try await harness.get("/status", headers: ["Accept-Language": "zh-CN,zh;q=0.9,en;q=0.8"])
        #expect(chinese.text.contains("<html lang=\"zh-CN\">"))
        #expect(chinese.text.contains("电池供电") && chinese.text.contains("市电供电") && chinese.text.contains("断开连接"))
        #expect(chinese.header("Vary")?.contains("Accept-Language") == true)
        let switched = try await harness.get("/status?lang=en", headers: ["Accept-Language": "zh-CN"])
        #expect(switched.text.contains("<html lang=\"en\">") && switched.text.contains("on battery"))
        let json = try await harness.get("/status.json?lang=zh")
        #expect(json.text.contains("电池供电"))
        #expect(try await harness.get("/status").text.contains("<html lang=\"en\">"), "English without a preference")
        await harness.shutdown()
    }

    @Test(arguments: [
        (nil, "zh-CN,zh;q=0.9,en;q=0.8", StatusLanguage.zh), (nil, "fr, en;q=0.4, zh;q=0.5", .zh),
        (nil, "en-GB, zh;q=0.9", .en), (nil, "zh;q=0, en;q=0", .en), (nil, "de, fr", .en), (nil, ";;,,q=x;", .en),
        ("zh", "en", .zh), ("en", "zh-TW", .en), ("klingon", "zh-Hans", .zh), (nil, nil, .en),
    ] as [(String?, String?, StatusLanguage)])
    func negotiation(query: String?, header: String?, expected: StatusLanguage) {
        #expect(StatusLanguage.negotiate(query: query, acceptLanguage: header) == expected)
    }

    @Test func theHistoryIsBoundedAt24HoursPerUPS() {
        var history = StatusHistory()
        let start = Date(timeIntervalSince1970: 1_760_000_000)
        // Three days of readings every 60 s.
        for minute in 0..<(3 * 24 * 60) {
            history.record(at: start.addingTimeInterval(Double(minute * 60)), load: Double(minute % 100), battery: 100,
                           inputVoltage: 230)
        }
        let end = start.addingTimeInterval(Double(3 * 24 * 60 * 60 - 60))
        let points = history.points(until: end)
        #expect(points.count == StatusHistory.capacity && StatusHistory.capacity == 288)
        #expect(points.map(\.slot) == points.map(\.slot).sorted())
        #expect(StatusHistory.bytesPerUPS == 288 * 16, "4.6 KB per UPS, 4.6 MB for 1,000 (docs/status-page.md)")
        // A day later with nothing recorded: nothing shown.
        #expect(history.points(until: end.addingTimeInterval(86_400)).isEmpty)
    }

    @Test func basicAuthenticationGuardsTheStatusPagesOnTheListener() async throws {
        let hash = try #require(BCrypt.hash(password: "page-pw", setting: "$2b$04$abcdefghijklmnopqrstuu"))
        let security = try loadWebSecurity(path: "/web.yml", files: .inMemory(["/web.yml": "basic_auth_users:\n  ops: \(hash)\n"]))
        let harness = try await Self.harness(until: 0, webSecurity: security)
        let credentials = "Basic " + Data("ops:page-pw".utf8).base64EncodedString()
        for path in ["/status", "/status.json", "/status/ups?device=\(Self.id(0))", "/status/status.js"] {
            #expect(try await harness.get(path).status == 401, "\(path)")
            #expect(try await harness.get(path, headers: ["Authorization": credentials]).status == 200, "\(path)")
        }
        await harness.shutdown()
    }

    @Test func energyCostIsCountedPerTariffOnMetricsAndShown() async throws {
        let harness = try await ExporterHarness(devices: 2, configureExporter: { configuration in
            configuration.energy.tariffs.currency = "CNY"
            configuration.energy.tariffs.flatPrice = 0.5
        })
        for _ in 0..<6 {
            await harness.exporter.collector.collect()
            harness.clock.advance(by: .seconds(5))
        }
        await harness.exporter.collector.collect()
        let samples = try await harness.scrape()
        let flat = samples["winpower_device_energy_cost_total{device_id=\"\(Self.id(0))\",tariff=\"flat\",currency=\"CNY\"}"]
        #expect((flat ?? 0) > 0, "the energy since the first reading is priced")
        let joules = Exposition.value(samples, "winpower_device_energy_joules_total", device: Self.id(0)) ?? 0
        #expect((flat ?? 0) <= joules / 3_600_000 * 0.5 + 1e-12, "never more than the whole total at the price")
        #expect(samples["winpower_exporter_energy_cost_start_timestamp_seconds"] == harness.epoch.timeIntervalSince1970)
        #expect(try await harness.get("/status").text.contains(" CNY</td>"))
        // Today's and this month's energy: what the total grew by since the page first saw the UPS.
        let json = try await harness.get("/status.json")
        let ups = try #require((try JSONSerialization.jsonObject(with: Data(json.body)) as? [String: Any])?["ups"] as? [[String: Any]])
        let first = try #require(ups.first { $0["device_id"] as? String == Self.id(0) })
        let (today, month, total) = (first["energy_today_kwh"] as? Double ?? -1, first["energy_month_kwh"] as? Double ?? -1,
                                     first["energy_kwh"] as? Double ?? -1)
        #expect(today > 0 && today == month && today <= total, "today \(today), month \(month), total \(total)")
        await harness.shutdown()
    }

    /// `energy.tariffs` is the cost counters' section: a reload makes them again, with new prices
    /// from then on and the costs so far kept; another currency starts them again; no currency
    /// turns them off. The status pages show the counters the exporter has now.
    @Test func aReloadOfTheTariffsMakesTheCostCountersAgain() async throws {
        #expect(!ConfigReloader.sectionsNeedingRestart(running: ExporterConfiguration(), next: {
            var next = ExporterConfiguration()
            next.energy.tariffs.currency = "EUR"
            return next
        }()).contains("energy"))
        let harness = try await ExporterHarness(devices: 2, configureExporter: { configuration in
            configuration.energy.tariffs.currency = "CNY"
            configuration.energy.tariffs.flatPrice = 0.5
        })
        func collect(_ times: Int) async {
            for _ in 0..<times {
                await harness.exporter.collector.collect()
                harness.clock.advance(by: .seconds(5))
            }
        }
        func flat(_ currency: String) async throws -> Double? {
            try await harness.scrape()["winpower_device_energy_cost_total{device_id=\"\(Self.id(0))\",tariff=\"flat\",currency=\"\(currency)\"}"]
        }
        await collect(6)
        let first = try #require(harness.exporter.energyCost)
        let before = try #require(try await flat("CNY"))
        #expect(before > 0)
        var dearer = harness.exporter.configuration
        dearer.energy.tariffs.flatPrice = 0.8
        let applied = try await harness.exporter.apply(dearer)
        #expect(applied.needsRestart.isEmpty && applied.summary.contains("restarted energy"), "\(applied.summary)")
        let second = try #require(harness.exporter.energyCost)
        #expect(second !== first && second.schedule.flatPrice == 0.8)
        await collect(6)
        let after = try #require(try await flat("CNY"))
        #expect(after > before, "the costs so far kept, the growth since priced")
        var euros = harness.exporter.configuration
        euros.energy.tariffs.currency = "EUR"
        _ = try await harness.exporter.apply(euros)
        await collect(2)
        #expect(try await flat("CNY") == nil)
        #expect(try await harness.get("/status").text.contains(" EUR</td>"))
        var off = harness.exporter.configuration
        off.energy.tariffs = .init()
        _ = try await harness.exporter.apply(off)
        #expect(harness.exporter.energyCost == nil)
        await collect(1)
        #expect(try await harness.scrape().keys.allSatisfy { !$0.hasPrefix("winpower_device_energy_cost_total") })
        await harness.shutdown()
    }

    @Test func aBrowserAcceptingGzipGetsTheCompressedPageOfThisPublication() async throws {
        let harness = try await Self.harness(until: 10)
        let plain = try await harness.get("/status")
        let compressed = try await harness.get("/status", headers: ["Accept-Encoding": "gzip"])
        #expect(compressed.header("Content-Encoding") == "gzip")
        #expect(compressed.header("Vary")?.contains("Accept-Encoding") == true)
        #expect(Gzip.decompress(compressed.body) == plain.body, "the same page, compressed")
        #expect(compressed.header("Content-Security-Policy") == StatusRoutes.contentSecurityPolicy)
        await harness.shutdown()
    }

    /// Two servers reporting the same device id: two rows, two pages, each its server's.
    @Test func twoServersReportingTheSameDeviceIdAreToldApart() async throws {
        let harness = try ServersHarness(servers: [
            ("rack-a", ClientStub([.success(.make(devices: [.make(id: "ups-1", watts: 100)]))])),
            ("rack-b", ClientStub([.success(.make(devices: [.make(id: "ups-1", watts: 250)]))])),
        ])
        for pipeline in harness.exporter.pipelines { await pipeline.collector.collect() }
        let page = try await harness.get("/status")
        #expect(page.status == 200)
        #expect(page.text.contains("/status/ups?device=ups-1&amp;server=rack-a&amp;lang=en"))
        #expect(page.text.contains("/status/ups?device=ups-1&amp;server=rack-b&amp;lang=en"))
        #expect(page.text.contains("<td>rack-a</td>") && page.text.contains("<td>rack-b</td>"))
        let a = try await harness.get("/status/ups?device=ups-1&server=rack-a")
        let b = try await harness.get("/status/ups?device=ups-1&server=rack-b")
        #expect(a.status == 200 && b.status == 200)
        #expect(a.text.contains("<td>100</td>") && b.text.contains("<td>250</td>"), "each its own readings")
        #expect(a.text.contains("server=&quot;rack-a&quot;") && !a.text.contains("server=&quot;rack-b&quot;"), "its server's /metrics lines")
        #expect(try await harness.get("/status/ups?device=ups-1").status == 404, "with servers, the server is named")
        #expect(try await harness.get("/status/outages.json?device=ups-1&server=rack-c").status == 404)
        await harness.exporter.close()
    }

    /// Servers with `site` labels: a roll-up per site (its UPSs, those needing attention and on
    /// battery, its energy), the site needing attention first, the fleet table grouped by site
    /// with each UPS's server named; `/status.json` says the same for the script.
    @Test func sitesAreRolledUpAndTheirUPSsGrouped() async throws {
        let harness = try ServersHarness(servers: [
            ("rack-a", ClientStub([.success(.make(devices: [.make(id: "ups-1", watts: 100)]))])),
            ("rack-b", ClientStub([.success(.make(devices: [.make(id: "ups-2", watts: 250, mode: 4), .make(id: "ups-3", watts: 50)]))])),
            ("rack-c", ClientStub([.success(.make(devices: [.make(id: "ups-4", watts: 80)]))])),
        ])
        for pipeline in harness.exporter.pipelines { await pipeline.collector.collect() }
        let page = try await harness.get("/status?lang=en").text
        #expect(page.contains("<table id=\"site-table\" class=\"cards\">"))
        let sites = page.components(separatedBy: "<table id=\"site-table\"")[1].components(separatedBy: "</table>")[0]
        // site-1 (rack-b: ups-2 on battery, ups-3) needs attention: first; site-0 (rack-a, rack-c) then.
        #expect(sites.contains("<tr class=\"attention\"><td data-label=\"Site\">site-1</td><td data-label=\"UPSs\">2</td>"
                               + "<td data-label=\"Need attention\">1</td><td data-label=\"On battery\">1</td>"), "\(sites)")
        #expect(sites.contains("<tr class=\"normal\"><td data-label=\"Site\">site-0</td><td data-label=\"UPSs\">2</td>"
                               + "<td data-label=\"Need attention\">0</td><td data-label=\"On battery\">0</td>"), "\(sites)")
        #expect(sites.range(of: "site-1")!.lowerBound < sites.range(of: "site-0")!.lowerBound)
        let table = page.components(separatedBy: "<table id=\"ups-table\"")[1].components(separatedBy: "</table>")[0]
        let groups = table.components(separatedBy: "<tr class=\"site\">").dropFirst().map { String($0.prefix(200)) }
        #expect(groups.count == 2)
        #expect(groups.first?.contains("site-1 · 2 UPSs · 1 need attention") == true, "\(groups)")
        #expect(groups.last?.contains("site-0 · 2 UPSs<") == true, "\(groups)")
        let order = ["ups-2", "ups-3", "ups-1", "ups-4"].map { table.range(of: "device=\($0)&")?.lowerBound }
        #expect(order.allSatisfy { $0 != nil } && order.map { $0! } == order.map { $0! }.sorted(), "grouped, attention first within")
        #expect(table.contains("<td data-label=\"Server\">rack-b</td>"), "each UPS's server named")
        let json = try #require(try JSONSerialization.jsonObject(with: Data(try await harness.get("/status.json").text.utf8)) as? [String: Any])
        let rollUps = try #require(json["sites"] as? [[String: Any]])
        #expect(rollUps.map { $0["name"] as? String } == ["site-1", "site-0"])
        #expect((rollUps.first?["cells"] as? [String])?.prefix(4) == ["site-1", "2", "1", "1"])
        let ups = try #require(json["ups"] as? [[String: Any]])
        #expect(ups.map { $0["site"] as? String } == ["site-1", "site-1", "site-0", "site-0"])
        await harness.exporter.close()
    }

    /// Each row's sparkline: the last 24 hours of load and charge per half hour, drawn in the page
    /// and given to the script in `/status.json` (48 values, `null` where none).
    @Test func everyRowHasASparklineOfItsLast24Hours() async throws {
        let harness = try await ExporterHarness(devices: 2)
        for step in 0...4 {  // an hour and a half, a reading every 20 minutes
            if step > 0 { harness.clock.advance(by: .seconds(1_200)) }
            await harness.exporter.collector.collect()
        }
        let page = try await harness.get("/status").text
        #expect(page.components(separatedBy: "<td class=\"spark\" data-label=\"24 h\"><svg class=\"spark\"").count - 1 == 2)
        #expect(page.contains("<polyline class=\"spark-load\"") && page.contains("<polyline class=\"spark-battery\""))
        let json = try #require(try JSONSerialization.jsonObject(with: Data(try await harness.get("/status.json").text.utf8)) as? [String: Any])
        let spark = try #require((json["ups"] as? [[String: Any]])?.first?["spark"] as? [String: Any])
        let load = try #require(spark["load"] as? [Any])
        #expect(load.count == 48)
        let values = load.compactMap { $0 as? Int }
        #expect((3...4).contains(values.count), "a value per half hour read: \(load)")
        #expect(load.last is Int, "the newest half hour last")
        await harness.shutdown()
    }

    /// WinPower answering 500 past the staleness window: its UPSs stay listed, as stale, and the
    /// server is shown unhealthy.
    @Test func theUPSsOfAServerThatStoppedAnsweringStayListedAsStale() async throws {
        let harness = try await Self.harness(until: 10)
        #expect(Self.rowOrder(try await harness.get("/status").text).count == 3)
        harness.simulator.enable(.http500)
        for _ in 0..<6 {
            harness.clock.advance(by: .seconds(5))
            await harness.exporter.collector.collect()
        }
        let page = try await harness.get("/status").text
        #expect(Set(Self.rowOrder(page)) == Set((0..<3).map(Self.id)), "every UPS still listed")
        #expect(page.components(separatedBy: "<tr class=\"state-stale attention\">").count == 4, "all three stale: \(page.components(separatedBy: "<tr class=").dropFirst().map { $0.prefix(30) })")
        #expect(page.contains("<tr class=\"unhealthy\">"), "the server unhealthy")
        #expect(try await harness.get("/status/ups?device=\(Self.id(0))").status == 200, "its page still there")
        await harness.shutdown()
    }

    @Test func theOutagesTodaysEnergyAndTheCostsSurviveARestart() async throws {
        let clock = ManualClock()
        let tariffs: (inout ExporterConfiguration) -> Void = { configuration in
            configuration.energy.tariffs.currency = "CNY"
            configuration.energy.tariffs.flatPrice = 0.5
        }
        let outage: (inout WinPowerSimulator.Configuration) -> Void = { simulator in
            simulator.outageSchedule = [OutageWindow(device: 0, start: 10, length: 20)]
        }
        // The first run: device 0 on battery from 10 s to 30 s, collected until 45 s.
        let first = try await ExporterHarness(devices: 2, clock: clock, configure: outage, configureExporter: tariffs)
        for _ in 0...9 {
            await first.exporter.collector.collect()
            clock.advance(by: .seconds(5))
        }
        let query = "device=\(Self.id(0))"
        let outagesBefore = try await first.get("/status/outages.csv?\(query)").text
        #expect(outagesBefore.split(separator: "\r\n").count == 2, "one outage: \(outagesBefore)")
        let before = try await first.scrape()
        let cost = "winpower_device_energy_cost_total{device_id=\"\(Self.id(0))\",tariff=\"flat\",currency=\"CNY\"}"
        let costBefore = try #require(before[cost])
        #expect(costBefore > 0)
        let todayBefore = try await Self.energyToday(first, Self.id(0))
        #expect(todayBefore > 0)
        await first.shutdown()

        // The next process, on the same data directory, a minute later.
        clock.advance(by: .seconds(60))
        let second = try await ExporterHarness(devices: 2, dataDirectory: first.dataDirectory, clock: clock, configure: outage,
                                               configureExporter: tariffs)
        let restarted = try await second.scrape()
        #expect(restarted[cost] == costBefore, "the cost counter continues, before any collection")
        #expect(restarted["winpower_exporter_energy_cost_start_timestamp_seconds"] == before["winpower_exporter_energy_cost_start_timestamp_seconds"],
                "counting started with the first run")
        #expect(second.logs.records.contains { $0.message == "energy costs continued from the data directory" })
        await second.exporter.collector.collect()
        clock.advance(by: .seconds(5))
        await second.exporter.collector.collect()
        #expect(try await second.get("/status/outages.csv?\(query)").text == outagesBefore, "the outage list kept, not repeated")
        #expect(try await Self.energyToday(second, Self.id(0)) >= todayBefore, "today's energy counted from the day's start, not from the restart")
        #expect(try #require(try await second.scrape()[cost]) >= costBefore)
        await second.shutdown()
    }

    /// A restart in the middle of an outage, at wall-clock times with a fraction of a
    /// millisecond (the state file keeps the ledger's start to the millisecond): the outage is
    /// listed once, and it ends when mains comes back, never left in progress.
    @Test func anOutageAcrossARestartIsOneOutageAndEnds() async throws {
        let clock = ManualClock()
        let outage: (inout WinPowerSimulator.Configuration) -> Void = { simulator in
            simulator.outageSchedule = [OutageWindow(device: 0, start: 10, length: 40)]
        }
        let step = Duration.seconds(5) + .microseconds(1_234)
        let first = try await ExporterHarness(devices: 1, clock: clock, configure: outage)
        for _ in 0...4 {   // to about 25 s: on battery since about 10 s
            await first.exporter.collector.collect()
            clock.advance(by: step)
        }
        let query = "device=\(Self.id(0))"
        let during = try await first.get("/status/outages.csv?\(query)").text.split(separator: "\r\n")
        #expect(during.count == 2 && during[1].hasSuffix(",true"), "one outage in progress: \(during)")
        await first.shutdown()

        // The simulator's time starts with it: on battery from its start (about 25 s) to 50 s.
        let second = try await ExporterHarness(devices: 1, dataDirectory: first.dataDirectory, clock: clock, configure: { simulator in
            simulator.outageSchedule = [OutageWindow(device: 0, start: 0, length: 50 - clock.now.offset.inSeconds)]
        })
        for _ in 0...7 {   // to about 65 s: mains back at 50 s
            await second.exporter.collector.collect()
            clock.advance(by: step)
        }
        let after = try await second.get("/status/outages.csv?\(query)").text.split(separator: "\r\n")
        #expect(after.count == 2, "one outage, not one per run: \(after)")
        #expect(after.last?.hasSuffix(",false") == true, "ended: \(after)")
        #expect(after.last.map { $0.split(separator: ",", omittingEmptySubsequences: false)[1].isEmpty } == false,
                "its end observed by the second run: \(after)")
        await second.shutdown()
    }

    /// A data directory written by an earlier version, with the same outage twice (starts a
    /// fraction of a millisecond apart) and one left in progress: read back as one outage, and
    /// no outage but the last in progress.
    @Test func duplicatedOutagesKeptByAnEarlierRunAreMerged() {
        let start = 1_795_678_200.123_456
        let ended = OutageRecord(start: Date(timeIntervalSince1970: start.rounded(.down) + 0.123), end: Date(timeIntervalSince1970: start + 60),
                                 durationSeconds: 60, lowestBatteryPercent: 90, energyOnBatteryWattHours: 1, ongoing: false)
        let stuck = OutageRecord(start: Date(timeIntervalSince1970: start), end: nil, durationSeconds: nil,
                                 lowestBatteryPercent: 95, energyOnBatteryWattHours: nil, ongoing: true)
        let older = OutageRecord(start: Date(timeIntervalSince1970: start - 86_400), end: nil, durationSeconds: nil,
                                 lowestBatteryPercent: nil, energyOnBatteryWattHours: nil, ongoing: true)
        let merged = StatusPage<ManualClock>.deduplicated([stuck, older, ended])
        #expect(merged.count == 2)
        #expect(merged.last == ended, "the copy that ended wins")
        #expect(merged.first?.start == older.start && merged.first?.ongoing == false, "an older one is not in progress: its end unknown")
        #expect(merged.first?.end == nil)
        #expect(StatusPage<ManualClock>.deduplicated([ended, stuck]) == [ended])
    }

    /// A UPS page's `/metrics` lines come from an index made once per publication: the same
    /// lines a scan of the whole text finds, for ids and servers that need escaping, a server's
    /// UPS apart from another's with the same id, and none for a UPS not there.
    @Test func theExpositionIndexFindsWhatTheScanFinds() {
        let text = """
            # HELP winpower_device_load_percent Load.
            # TYPE winpower_device_load_percent gauge
            winpower_device_load_percent{device_id="ups-1",device_name="A",server="site-a"} 10
            winpower_device_load_percent{server="site-b",device_id="ups-1",device_name="B"} 20
            winpower_device_load_percent{device_id="we\\\\ird \\"id\\"",device_name="x,y=\\"z\\"",server="site \\"c\\""} 30
            winpower_device_info{device_id="ups-1",server="site-a",model="C3K"} 1
            winpower_device_info{device_id="ups-2"} 1
            winpower_exporter_up 1

            """
        let bytes = Array(text.utf8)
        let index = StatusExpositionIndex(text: bytes)
        for (server, device) in [("site-a", "ups-1"), ("site-b", "ups-1"), ("site \"c\"", "we\\ird \"id\""), ("", "ups-2"),
                                 ("site-a", "ups-9"), ("", "ups-1")] {
            let scanned = StatusPage<ManualClock>.scan(bytes, server: server, device: device, limit: 400)
            let indexed = index.lines(server: server, device: device, limit: 400)
            if server.isEmpty && device == "ups-1" {
                #expect(indexed.isEmpty, "no server label: not a site's UPS")
            } else {
                #expect(indexed == scanned, "\(server) \(device)")
            }
        }
        #expect(index.lines(server: "site-a", device: "ups-1", limit: 400).count == 2)
        #expect(index.lines(server: "site \"c\"", device: "we\\ird \"id\"", limit: 400).count == 1)
        #expect(index.lines(server: "site-a", device: "ups-1", limit: 1).count == 1)
    }

    @Test func timesAreShownInTheConfiguredZoneWithTheirOffset() {
        var model = StatusModel.empty
        model.generatedAt = Date(timeIntervalSince1970: 1_795_678_200)   // 2026-11-26 07:30:00 UTC
        model.timeZone = .fixed(8 * 3600)
        let shanghai = String(decoding: StatusRender.page(model, language: .zh), as: UTF8.self)
        #expect(shanghai.contains(">2026-11-26 15:30:00 UTC+08:00</time>"), "\(shanghai)")
        model.timeZone = .fixed(0)
        let utc = String(decoding: StatusRender.page(model, language: .en), as: UTF8.self)
        #expect(utc.contains(">2026-11-26 07:30:00 UTC</time>"))
    }

    @Test func aKeptRecordThatCannotBeReadIsNamedAndDroppedTheOthersKept() {
        let sections = StateSections()
        let good = ["ups-1", "2026-11-26", "3600.0", "2026-11", "1800.0", ""]   // as the page writes them
        let outage = ["ups-1", "1795678200.0", "1795678260.0", "60.0", "97.0", "0.5", "0"]
        sections.replace(StatusMemory.energySection, with: [good, ["ups-2", "2026-11-26", "lots", "2026-11", "1", ""], ["short"],
                                                            ["ups-3", "2026-11-26", "-1e300", "2026-11", "1", ""]])
        sections.replace(StatusMemory.outageSection, with: [outage, ["ups-1", "", "", "", "", "", "0"], ["ups-2", "1", "", "", "", "", "maybe"],
                                                            ["ups-1", "1795678200.0", "", "", "1e300", "", "0"]])
        let logs = InMemoryLogSink()
        _ = StatusPage(publication: NoFleet(), wallClock: .fixed(Date(timeIntervalSince1970: 1_795_680_000)),
                       sections: sections, logger: logs.logger())
        let dropped = logs.records.filter { $0.message == "a status page record of the data directory is unreadable and dropped" }
        #expect(dropped.compactMap { $0.fields["record"]?.description.prefix(24) } == [
            "status-energy record 2: ", "status-energy record 3: ", "status-energy record 4: ", "status-outages record 2:",
            "status-outages record 3:", "status-outages record 4:",
        ])
        // The readable ones are kept and written back (their UPS not listed yet: kept for 24 h).
        #expect(sections.records(StatusMemory.energySection) == [good])
        #expect(sections.records(StatusMemory.outageSection) == [outage])
    }

    /// A UPS's energy today (kWh) as `/status.json` says it.
    static func energyToday(_ harness: ExporterHarness, _ device: String) async throws -> Double {
        let json = try await harness.get("/status.json")
        let ups = try #require((try JSONSerialization.jsonObject(with: Data(json.body)) as? [String: Any])?["ups"] as? [[String: Any]])
        return try #require(ups.first { $0["device_id"] as? String == device }?["energy_today_kwh"] as? Double)
    }
}
