import Foundation
import Testing
import WPTestThreads
import WPClient
import WPCollector
import WPEnergy
import WPStorage
import WPTestSupport
import WPRuntime

/// Byte-for-byte goldens of a fixed readout in both formats, and the metric tables in
/// README.md and docs/metrics.md checked against them. `UPDATE_GOLDEN=1` rewrites the goldens
/// (and `Golden/metrics-table.md`, the generated table to paste into the docs).
@Suite(.ownThreads, .timeLimit(.minutes(3))) struct CollectorGoldenTests {
    static let testsDirectory = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    static let packageRoot = testsDirectory.deletingLastPathComponent().deletingLastPathComponent()
    static let updating = ProcessInfo.processInfo.environment["UPDATE_GOLDEN"] != nil

    /// Families the runtime renders per scrape and appends to the snapshot: documented in
    /// the same tables, absent from the collector's golden.
    static let perScrapeFamilies: Set<String> = [
        "winpower_exporter_requests_total", "winpower_exporter_build_info",
        "winpower_exporter_config_last_reload_successful", "winpower_exporter_config_last_reload_success_timestamp_seconds",
        "process_cpu_seconds_total", "process_max_fds", "process_open_fds", "process_resident_memory_bytes",
        "process_start_time_seconds", "process_threads", "process_virtual_memory_bytes",
        "process_virtual_memory_max_bytes",
        "winpower_exporter_nut_connections_open", "winpower_exporter_nut_connections_total", "winpower_exporter_nut_logins",
        "winpower_exporter_nut_commands_total",
        "winpower_exporter_http_connections_open", "winpower_exporter_http_connections_total",
        "winpower_exporter_snmp_requests_total", "winpower_exporter_snmp_notifications_total",
        "winpower_exporter_history_available", "winpower_exporter_history_slots_written_total",
        "winpower_exporter_history_write_failures_total",
        "winpower_exporter_notifications_dropped_total", "winpower_exporter_notifications_failed_total",
        "winpower_exporter_notifications_retried_total", "winpower_exporter_notifications_sent_total",
        "winpower_exporter_mqtt_connected", "winpower_exporter_mqtt_connections_total",
        "winpower_exporter_mqtt_connection_failures_total", "winpower_exporter_mqtt_messages_sent_total",
        "winpower_exporter_mqtt_messages_dropped_total", "winpower_exporter_mqtt_messages_queued",
    ]

    /// The fixed scenario: a stored total for the first device, a stored outage ledger (two
    /// outages, the last one observed, and a self-test) for the third, self-tests for the first, two cycles 5 s apart, one
    /// skip; the second device is on battery in both cycles (an outage in progress).
    static func goldenSnapshot() async throws -> MetricsSnapshot {
        var ledger = OutageLedger()
        ledger.transfers = 2
        ledger.onBatterySeconds = 750
        ledger.dischargeJoules = 412_000
        ledger.observe(duration: 42)
        ledger.observe(duration: 710)
        ledger.lastStart = Date(timeIntervalSince1970: 1_760_300_000)
        ledger.lastEnd = Date(timeIntervalSince1970: 1_760_300_710)
        ledger.lastDuration = 710
        ledger.lastRuntime = 320
        ledger.tests = 1
        ledger.lastTest = Date(timeIntervalSince1970: 1_760_200_000)
        ledger.lastTestStatus = 1
        var tested = OutageLedger()
        tested.tests = 4
        tested.lastTest = Date(timeIntervalSince1970: 1_760_100_000)
        tested.lastTestStatus = 2
        let stored = EnergyState(devices: [
            "0b0c4d6e-0001-4b35-b0dd-000000000001": StoredDeviceEnergy(joules: 3_600_000, ledger: StoredOutageLedger(tested)),
            "0b0c4d6e-0003-4b35-b0dd-000000000003": StoredDeviceEnergy(joules: 0, ledger: StoredOutageLedger(ledger)),
        ])
        let fixture = try CollectorFixture(client: ClientStub([.success(.collectorGolden())]),
                                           store: InMemoryEnergyStore(initial: stored))
        await fixture.collector.collect()
        fixture.clock.advance(by: .seconds(5))
        fixture.collector.recordSkippedCollections(total: 1)
        await fixture.collector.collect()
        return fixture.collector.snapshot
    }

    static func compare(_ bytes: [UInt8], golden name: String) throws {
        let url = testsDirectory.appendingPathComponent("Golden").appendingPathComponent(name)
        if updating {
            try Data(bytes).write(to: url)
            return
        }
        let expected = try Data(contentsOf: url)
        #expect(String(decoding: bytes, as: UTF8.self) == String(decoding: expected, as: UTF8.self),
                "run with UPDATE_GOLDEN=1 to rewrite \(name)")
    }

    @Test func textExpositionMatchesTheGolden() async throws {
        try Self.compare(try await Self.goldenSnapshot().text, golden: "collector.txt")
    }

    @Test func openMetricsExpositionMatchesTheGolden() async throws {
        try Self.compare(try await Self.goldenSnapshot().openMetrics + Array("# EOF\n".utf8), golden: "collector.openmetrics.txt")
    }

    /// The families that appear only when needed: a three-phase UPS with a configured battery
    /// and passed-through readings (one device over the per-device cap), beside a single-phase UPS.
    static func readingsSnapshot() async throws -> MetricsSnapshot {
        var three = Device.make(id: "0b0c4d6e-0005-4b35-b0dd-000000000005", alias: "Hall 3P", watts: 2_700)
        three.config.inputPhaseNumber = 3
        three.config.outputPhaseNumber = 3
        three.realtime.loadWatt1 = 900
        three.realtime.loadVa1 = 930
        three.realtime.inputVolt1 = 230.1
        three.realtime.outputVolt1 = 220.1
        three.realtime.outputCurrent1 = 4.1
        for phase in 1...3 {
            three.realtime.phases[.inputVolt, phase] = phase == 1 ? nil : 230 + Double(phase) / 10
            three.realtime.phases[.inputCurrent, phase] = 4 + Double(phase) / 10
            three.realtime.phases[.outputVolt, phase] = phase == 1 ? nil : 220 + Double(phase) / 10
            three.realtime.phases[.outputCurrent, phase] = phase == 1 ? nil : 4.1
            three.realtime.phases[.loadWatt, phase] = phase == 1 ? nil : 900
            three.realtime.phases[.loadVa, phase] = phase == 1 ? nil : 930
        }
        three.extraReadings = [ExtraReading(section: .realtime, key: "emdTemp", value: 24.5),
                               ExtraReading(section: .config, key: "ratingPf", value: 0.9),
                               ExtraReading(section: .setting, key: "lowBatteryWarning", value: 20)]
        three.battery = BatteryLife(installed: "2023-06-15", life: "5y")
        var many = Device.make(id: "0b0c4d6e-0006-4b35-b0dd-000000000006", alias: "Many \"readings\"", watts: 100)
        many.extraReadings = (1...70).map { ExtraReading(section: .realtime, key: "reading\($0)", value: Double($0)) }
        many.realtime.batCapacity = -1e308   // refused: no battery capacity, one battery_charge refused
        let fixture = try CollectorFixture(client: ClientStub([.success(.make(devices: [three, many]))]))
        await fixture.collector.collect()
        return fixture.collector.snapshot
    }

    @Test func readingsExpositionMatchesTheGolden() async throws {
        let snapshot = try await Self.readingsSnapshot()
        try Self.compare(snapshot.text, golden: "collector-readings.txt")
        try Self.compare(snapshot.openMetrics + Array("# EOF\n".utf8), golden: "collector-readings.openmetrics.txt")
    }

    /// docs/metrics.md lists the families that appear only when needed in their own table.
    @Test func conditionalFamiliesAreDocumented() async throws {
        let exposition = try CollectorExposition(text: try await Self.readingsSnapshot().text)
        let plain = try CollectorExposition(text: try await Self.goldenSnapshot().text)
        let conditional = exposition.familyOrder.filter { !plain.familyOrder.contains($0) }
        #expect(conditional.count == 14)
        let markdown = try String(contentsOf: Self.packageRoot.appendingPathComponent("docs/metrics.md"), encoding: .utf8)
        let documented = Self.documentedRows(markdown, section: "## Families that appear only when needed")
        #expect(documented.map(\.name) == conditional)
        for row in documented {
            #expect(row.meaning.hasPrefix(exposition.help[row.name] ?? "?"), "meaning of \(row.name) must start with its HELP")
            #expect(row.type == exposition.types[row.name], "type of \(row.name)")
        }
    }

    /// A documented family: name, text-format type, label names, meaning.
    struct Row: Equatable, CustomStringConvertible {
        var name: String
        var type: String
        var labels: [String]
        var meaning: String
        var description: String { "\(name) \(type) [\(labels.joined(separator: ","))]" }
    }

    /// The rows the golden exposition implies.
    static func goldenRows() async throws -> [Row] {
        let exposition = try CollectorExposition(text: try await goldenSnapshot().text)
        return exposition.familyOrder.map { family in
            var labels: [String] = []
            let names: Set<String> = [family, family + "_bucket", family + "_sum", family + "_count"]
            for line in exposition.lines where names.contains(line.name) {
                for key in line.labels.keys.sorted() where key != "le" && !labels.contains(key) { labels.append(key) }
            }
            let order = ["device_id", "device_name", "device_type"]
            labels.sort { (order.firstIndex(of: $0) ?? 99, $0) < (order.firstIndex(of: $1) ?? 99, $1) }
            return Row(name: family, type: exposition.types[family] ?? "", labels: labels,
                       meaning: exposition.help[family] ?? "")
        }
    }

    /// Table rows (first cell in backticks) of `markdown`, from the heading `section` to the next `## `.
    static func documentedRows(_ markdown: String, section: String) -> [Row] {
        var rows: [Row] = []
        var inside = false
        for line in markdown.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("## ") { inside = line == section }
            guard inside, line.hasPrefix("| `") else { continue }
            let cells = line.split(separator: "|", omittingEmptySubsequences: false).dropFirst().dropLast()
                .map { $0.trimmingCharacters(in: .whitespaces) }
            guard cells.count == 4 else { continue }
            let strip = { (text: String) in text.replacingOccurrences(of: "`", with: "") }
            let labels = cells[2] == "—" ? [] : cells[2].split(separator: ",").map { strip($0.trimmingCharacters(in: .whitespaces)) }
            rows.append(Row(name: strip(cells[0]), type: cells[1], labels: labels, meaning: cells[3]))
        }
        return rows
    }

    static func table(_ rows: [Row]) -> String {
        var text = "| Metric | Type | Labels | Meaning |\n|---|---|---|---|\n"
        for row in rows {
            let labels = row.labels.isEmpty ? "—" : row.labels.map { "`\($0)`" }.joined(separator: ", ")
            text += "| `\(row.name)` | \(row.type) | \(labels) | \(row.meaning) |\n"
        }
        return text
    }

    @Test(arguments: [("README.md", "## Metrics"), ("docs/metrics.md", "## Every family")])
    func documentedTableMatchesTheGolden(file: String, section: String) async throws {
        let golden = try await Self.goldenRows()
        if Self.updating {
            try Self.table(golden).write(to: Self.testsDirectory.appendingPathComponent("Golden/metrics-table.md"),
                                         atomically: true, encoding: .utf8)
        }
        let markdown = try String(contentsOf: Self.packageRoot.appendingPathComponent(file), encoding: .utf8)
        let documented = Self.documentedRows(markdown, section: section)
        let collectorRows = documented.filter { !Self.perScrapeFamilies.contains($0.name) }
        #expect(collectorRows.map(\.name) == golden.map(\.name), "\(file): families and their order")
        for (row, expected) in zip(collectorRows, golden) where row.name == expected.name {
            #expect(row.type == expected.type, "\(file): type of \(row.name)")
            #expect(row.labels == expected.labels, "\(file): labels of \(row.name)")
            #expect(row.meaning.hasPrefix(expected.meaning), "\(file): meaning of \(row.name) must start with its HELP")
        }
        #expect(Set(documented.map(\.name)).isSuperset(of: Self.perScrapeFamilies), "\(file): per-scrape families")
    }
}
