import Foundation
import Testing
import WPTestThreads
import WPClient
import WPCollector
import WPConfig
import WPHistory
import WPRuntime
import WPSimulator
import WPTestSupport
@testable import WPExporter

/// The battery health meter in the exporter (docs/battery.md, "Measured health"): the
/// simulator's scripted outages with a falling runtime measured at each collection, judged on
/// `/metrics`, on the UPS page and in the journal; a self-test overdue journaled.
@Suite(.ownThreads, .timeLimit(.minutes(4))) struct BatteryHealthExporterTests {
    /// Three 300 s outages of UPS 0 whose battery delivers 1,000 s, 980 s, then 600 s from full
    /// charge, collected every 30 s; a fourth UPS's battery never used.
    @Test func aFallingRuntimeIsFlaggedAtTheThirdOutageOnly() async throws {
        let harness = try await ExporterHarness(devices: 1, configure: { simulator in
            simulator.outageSchedule = [OutageWindow(start: 100, length: 300, runtime: 1_000),
                                        OutageWindow(start: 1_000, length: 300, runtime: 980),
                                        OutageWindow(start: 2_000, length: 300, runtime: 600)]
        })
        let device = try #require(harness.simulator.devices.first?.id)
        let name = try #require(harness.simulator.devices.first?.alias)
        let ratio = "winpower_device_battery_health_ratio{device_id=\"\(device)\",device_name=\"\(name)\"}"
        let count = "winpower_device_battery_health_measurements{device_id=\"\(device)\",device_name=\"\(name)\"}"
        func collect(until seconds: Int) async {
            while Int(harness.clock.now.offset.inSeconds) < seconds {
                harness.clock.advance(by: .seconds(30))
                await harness.exporter.collector.collect()
            }
        }
        await harness.exporter.collector.collect()
        await collect(until: 450)
        var metrics = try await harness.scrape()
        #expect(metrics[count] == 1 && metrics[ratio] == nil, "\(metrics.filter { $0.key.contains("health") })")
        await collect(until: 1_350)
        metrics = try await harness.scrape()
        #expect(metrics[count] == 2 && metrics[ratio] == nil, "two measurements: not enough data")
        let page = try await harness.get("/status/ups?device=\(device)")
        #expect(page.text.contains("not enough data (2 of 3 measurements)"), "\(page.text)")
        await collect(until: 2_350)
        metrics = try await harness.scrape()
        #expect(metrics[count] == 3)
        let health = try #require(metrics[ratio])
        #expect(health > 0.5 && health < 0.7, "600 s against 1,000 s: \(health)")
        let low = try await harness.get("/status/ups?device=\(device)")
        #expect(low.text.contains("below 80 % of its first measurement"), "\(low.text)")
        #expect(low.text.contains("id=\"measurements\""))
        let events = try await harness.get("/status/events.json?kind=battery_health_low,battery_health_recovered")
        let document = try #require(try JSONSerialization.jsonObject(with: Data(events.text.utf8)) as? [String: Any])
        let kinds = (document["events"] as? [[String: Any]])?.compactMap { $0["kind"] as? String }
        #expect(kinds == ["battery_health_low"], "\(events.text)")
        await harness.shutdown()
    }

    /// `battery.*` out of range is refused at load, naming the key and its position; nothing
    /// else of the file is taken (the load throws: a running exporter keeps its configuration).
    @Test func badBatteryKeysAreRefusedNamingTheKey() {
        func problems(_ file: String) -> [String] {
            let inputs = ConfigurationInputs(environment: ["WINPOWER_EXPORTER_WINPOWER_BASE_URL": "https://winpower.example.com",
                                                           "WINPOWER_EXPORTER_WINPOWER_USERNAME": "admin",
                                                           "WINPOWER_EXPORTER_WINPOWER_PASSWORD": "hunter2"],
                                             files: .inMemory(["./config.yaml": file]),
                                             schema: ConfigSchema.exporter.adding(BatteryHealthSettings.self))
            do {
                _ = try ConfigurationLoader.load(inputs)
                return []
            } catch {
                return error.problems.map(\.description)
            }
        }
        #expect(problems("battery:\n  health_threshold: 80\n  min_duration: 10s\n") == [])
        let cases: [(String, String)] = [
            ("battery:\n  min_duration: 500ms\n", "./config.yaml:2:17: battery.min_duration: must be at least 1s"),
            ("battery:\n  health_threshold: 120\n", "./config.yaml:2:21: battery.health_threshold: 120 is out of range; must be 1–99"),
            ("battery:\n  min_measurements: 1\n", "./config.yaml:2:21: battery.min_measurements: 1 is out of range; must be 2–24"),
            ("battery:\n  min_charge_used: 0\n", "./config.yaml:2:20: battery.min_charge_used: 0 is out of range; must be 1–100"),
            ("battery:\n  self_test_days: -1\n", "./config.yaml:2:19: battery.self_test_days: -1 is out of range; must be 0–3650"),
        ]
        for (file, expected) in cases {
            #expect(problems(file) == [expected], "\(file)")
        }
    }

    /// `battery.self_test_days`: a UPS seen for longer without a self-test is journaled as
    /// overdue once, and no longer once it tests.
    @Test func aSelfTestOverdueIsJournaled() async throws {
        let day = 86_400.0
        let harness = try await ExporterHarness(devices: 1, configure: { simulator in
            simulator.outageSchedule = [OutageWindow(start: 15 * day, length: 60, role: .batteryTest)]
        }, configureExporter: { $0[section: BatteryHealthSettings.self].selfTestDays = 10 })
        await harness.exporter.collector.collect()
        for step in [5.0, 6, 4, 0.0005, 1] {  // day 11: overdue; day 15: the test; day 16: no longer
            harness.clock.advance(by: .seconds(step * day))
            await harness.exporter.collector.collect()
        }
        let device = try #require(harness.simulator.devices.first?.id)
        let events = try await harness.get("/status/events.json?device=\(device)&kind=self_test_overdue,self_test_overdue_cleared,self_test_started&range=30d")
        let document = try #require(try JSONSerialization.jsonObject(with: Data(events.text.utf8)) as? [String: Any])
        let kinds = (document["events"] as? [[String: Any]])?.compactMap { $0["kind"] as? String }
        #expect(kinds == ["self_test_overdue_cleared", "self_test_started", "self_test_overdue"], "newest first: \(events.text)")
        // The UPS page: the last self-test with its result (WinPower's testStatus 1 after it), no longer overdue.
        let page = try await harness.get("/status/ups?device=\(device)")
        #expect(page.text.contains("<tr id=\"last-self-test\"><th>Last self-test</th><td>"), "\(page.text)")
        #expect(page.text.contains(": passed (testStatus 1)</td>"), "\(page.text)")
        let chinese = try await harness.get("/status/ups?device=\(device)&lang=zh")
        #expect(chinese.text.contains("：通过 (testStatus 1)") || chinese.text.contains(": 通过 (testStatus 1)"), "\(chinese.text)")
        await harness.shutdown()
    }
}
