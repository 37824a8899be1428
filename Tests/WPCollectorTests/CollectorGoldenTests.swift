import Foundation
import Testing
import WPClient
import WPCollector
import WPEnergy
import WPStorage
import WPTestSupport

/// Byte-for-byte goldens of a fixed readout in both formats, and the metric tables in
/// README.md and docs/metrics.md checked against them. `UPDATE_GOLDEN=1` rewrites the goldens
/// (and `Golden/metrics-table.md`, the generated table to paste into the docs).
@Suite struct CollectorGoldenTests {
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
