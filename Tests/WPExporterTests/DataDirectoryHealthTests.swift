import Foundation
import Testing
import WPTestThreads
import WPCollector
import WPEnergy
import WPLogging
import WPRuntime
import WPTestSupport
@testable import WPExporter

/// The data directory as the running exporter sees it: deleted, it is recreated at the next
/// save; while it cannot be saved to, `/health` says unhealthy naming it and
/// `winpower_exporter_energy_last_save_successful` is 0; a shutdown that could not save says
/// so, with where the last saved totals are.
@Suite(.ownThreads, .timeLimit(.minutes(4))) struct DataDirectoryHealthTests {
    /// One collection, then waits (on a thread of its own) for the save it asked for.
    static func collectAndSave(_ harness: ExporterHarness) async throws {
        harness.clock.advance(by: .seconds(5))
        await harness.exporter.collector.collect()
        let meter = harness.exporter.meter
        _ = try? await NamedThread.run(name: "test-wait-save") { try meter.waitForSaves(timeout: .seconds(60)) }
    }

    static func storage(_ response: TestHTTPClient.Response) throws -> [String: Any] {
        let object = try JSONSerialization.jsonObject(with: Data(response.text.utf8)) as? [String: Any]
        return try #require(object?["storage"] as? [String: Any])
    }

    @Test func aDeletedDataDirectoryIsRecreatedAndHealthStaysHealthy() async throws {
        let harness = try await ExporterHarness(devices: 3)
        defer { try? FileManager.default.removeItem(atPath: harness.dataDirectory) }
        try await Self.collectAndSave(harness)
        try FileManager.default.removeItem(atPath: harness.dataDirectory)
        try await Self.collectAndSave(harness)
        #expect(FileManager.default.fileExists(atPath: harness.dataDirectory + "/energy.state"))
        #expect(FileManager.default.fileExists(atPath: harness.dataDirectory + "/wpexporter.lock"))
        let health = try await harness.get("/health")
        #expect(health.status == 200, "\(health.text)")
        #expect(try Self.storage(health)["last_save_successful"] as? Bool == true)
        #expect(harness.logs.records.contains { $0.message.contains("data directory disappeared while running") })
        #expect(await harness.exporter.close())
        await harness.shutdown()
    }

    @Test func anUnsaveableDataDirectoryIsUnhealthyInHealthAndMetricsAndTheShutdownSaysWhereTheTotalsAre() async throws {
        let harness = try await ExporterHarness(devices: 3)
        let root = harness.dataDirectory + ".moved"
        defer {
            try? FileManager.default.removeItem(atPath: harness.dataDirectory)
            try? FileManager.default.removeItem(atPath: root)
        }
        try await Self.collectAndSave(harness)
        // Moved away and replaced by a file: the directory cannot be recreated.
        try FileManager.default.moveItem(atPath: harness.dataDirectory, toPath: root)
        _ = FileManager.default.createFile(atPath: harness.dataDirectory, contents: Data())
        try await Self.collectAndSave(harness)
        let health = try await harness.get("/health")
        #expect(health.status == 503)
        #expect(health.text.contains(#""status":"unhealthy""#))
        let storage = try Self.storage(health)
        #expect(storage["last_save_successful"] as? Bool == false)
        #expect(storage["data_dir"] as? String == harness.dataDirectory)
        #expect((storage["last_error"] as? String)?.contains(harness.dataDirectory) == true)
        // The gauge follows at the next collection (it renders the saves known then).
        try await Self.collectAndSave(harness)
        #expect(try await harness.scrape()["winpower_exporter_energy_last_save_successful"] == 0)
        #expect(try await harness.scrape()["winpower_exporter_energy_persist_failures_total"] ?? 0 >= 1)

        #expect(await harness.exporter.close() == false)
        let record = try #require(harness.logs.records.first { $0.message.contains("could not persist energy on shutdown") })
        #expect(record.level == .error)
        #expect("\(record.fields["last_saved_totals"] ?? "")".hasPrefix("the last saved totals are in \(root)/energy.state (generation 1"))
        await harness.shutdown()
    }
}
