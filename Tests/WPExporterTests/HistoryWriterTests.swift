import Foundation
import Testing
import WPTestThreads
import WPClient
import WPCollector
import WPConfig
import WPFrontEnd
import WPHistory
import WPLogging
import WPRuntime
import WPTestSupport
@testable import WPExporter

/// The history writer in the exporter: each UPS's readings in 5-minute slots in `history.db`,
/// written by its own thread; a file it cannot use costs nothing but the history.
@Suite(.ownThreads, .timeLimit(.minutes(3))) struct HistoryWriterTests {
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
        var next = harness.exporter.configuration
        next.history.retentionDays = 10
        next.storage.dataDirectory = harness.dataDirectory + "-elsewhere"
        let applied = try await harness.exporter.apply(next)
        #expect(applied.needsRestart == ["storage"], "\(applied.needsRestart)")
        #expect(applied.summary.contains("restarted history"), "\(applied.summary)")
        let second = try #require(Self.writer(harness.exporter))
        #expect(second !== first)
        #expect(second.path == harness.dataDirectory + "/history.db")
        #expect(harness.exporter.configuration.history.retentionDays == 10)
        #expect(harness.exporter.configuration.storage.dataDirectory == harness.dataDirectory)
        await harness.shutdown()
    }

    /// `history.enabled: false`, or energy kept in memory (no data directory): no writer.
    @Test func offWithoutADataDirectoryOrWhenDisabled() async throws {
        let disabled = try await ExporterHarness(devices: 1, configureExporter: { $0.history.enabled = false })
        #expect(Self.writer(disabled.exporter) == nil)
        await disabled.shutdown()
        let inMemory = try await ExporterHarness(devices: 1, energyStorage: .memory)
        #expect(Self.writer(inMemory.exporter) == nil)
        await inMemory.shutdown()
    }
}
