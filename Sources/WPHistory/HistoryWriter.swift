import FoundationEssentials
import Synchronization
import WPClient
import WPCollector
import WPEnergy
import WPConfig
package import WPFrontEnd
import WPLogging
import WPMetrics
import WPRuntime
import WPWallClock

/// The history writer of `history.*` (docs/storage.md, "History"): each publication's new
/// readings gathered into 5-minute slots per UPS (CPU work, in the subscriber), each finished
/// slot written to `history.db` in the data directory by a thread of its own, which also
/// deletes what is past each tier's retention once an hour. Collection, `/metrics`, NUT and SNMP
/// never wait for it; a database it cannot use (libsqlite3 missing, a foreign file, a full
/// disk) is a warning when it starts failing, its `/health` section and its metrics, and costs
/// nothing else.
package final class HistoryWriter<C: Clock>: FrontEnd where C.Duration == Duration {
    package let name = "the history writer"
    /// `history.db`'s path.
    package let path: String

    /// What `/health` shows of it, under `history`.
    package struct Status: Codable, Sendable, Equatable {
        /// `ok`, `starting` (nothing written yet) or `failing` (the last write failed).
        package var state: String
        package var path: String
        package var slotsWritten: Int
        /// Events written to the journal.
        package var eventsWritten = 0
        package var failures: Int
        package var lastError: String?

        enum CodingKeys: String, CodingKey {
            case state, path, slotsWritten = "slots_written", eventsWritten = "events_written", failures, lastError = "last_error"
        }
    }

    private struct Gathering {
        var accumulator = HistoryAccumulator()
        var events = HistoryEventTracker()
        /// The read instant of each UPS's last sample taken (a reading is taken once, however many
        /// publications carry it).
        var taken: [HistoryUPS: C.Instant] = [:]
    }

    /// The store, touched only by jobs of the writer's serial queue (one at a time, in order).
    private final class Connection: @unchecked Sendable {
        var store: HistoryStore?
        var lastPrune: Int64?
        /// SQLite's code of the failure warned of last, while writes fail.
        var warnedCode: Int32?
    }

    private let logger: WPLogger
    private let version: String
    /// How long the exit waits for the last write (`scheduler.graceful_shutdown_timeout`).
    private let shutdownWait: Duration
    private let retention: [HistoryTier: Int64]
    private let wallClock: WallClock
    /// The exporter's front ends now: the battery health meter's verdicts are events too.
    private let frontEnds: @Sendable () -> [any FrontEnd]
    private let queue: WorkerQueue
    private let gathering = Mutex(Gathering())
    private let connection = Connection()
    /// Shared with the availability gauge (made before the writer is whole).
    private final class StatusCell: Sendable {
        let value: Mutex<Status>
        init(_ status: Status) { value = Mutex(status) }
        func withLock<T>(_ body: (inout Status) -> T) -> T { value.withLock { body(&$0) } }
    }

    private let status: StatusCell
    /// Set when a reload stops it (``configuration(_:)``): 1 for a successor, 2 for none (the
    /// reload turned the history off).
    private let replaced = Atomic<Int>(0)
    private let written: WPCounter
    private let failed: WPCounter

    /// The writer of `context.configuration`'s `history.*`, or `nil` when it is off or the exporter
    /// keeps nothing on disk (no data directory).
    ///
    /// - Throws: ``FrontEndError/metrics(_:)`` when its metrics cannot be registered.
    package static func make(_ context: FrontEndContext<C>) throws(FrontEndError) -> HistoryWriter? {
        let history = context.configuration[section: HistorySettings.self]
        guard history.enabled, let directory = context.dataDirectory else { return nil }
        let writer = try HistoryWriter(path: HistoryStore.path(in: directory),
                                       history: history, context: context)
        // A successor a reload made journals the reload (``configuration(_:)``), not a start.
        if !context.atReload {
            writer.submitWrite([], [writer.exporterEvent(.exporterStarted, "wpexporter \(context.version)")])
        }
        context.publication.subscribe { [writer] state in writer.published(state) }
        return writer
    }

    private init(path: String, history: HistorySettings, context: FrontEndContext<C>) throws(FrontEndError) {
        self.path = path
        version = context.version
        logger = context.logger.component("history")
        shutdownWait = context.configuration.scheduler.gracefulShutdownTimeout
        wallClock = context.wallClock
        frontEnds = context.frontEnds
        retention = Dictionary(uniqueKeysWithValues: HistoryTier.allCases.map { ($0, Int64($0.retention(in: history).days) * 86_400) })
        queue = WorkerQueue(name: "history-writer", maxThreads: 1, idleTime: .seconds(30))
        status = StatusCell(Status(state: "starting", path: path, slotsWritten: 0, failures: 0))
        do throws(MetricsError) {
            written = try context.registry.counter(name: "winpower_exporter_history_slots_written_total",
                                                   help: "5-minute slots of UPS readings written to the history database.")
            failed = try context.registry.counter(name: "winpower_exporter_history_write_failures_total",
                                                  help: "Writes to the history database that failed (their slots are lost).")
            let status = self.status
            try context.registry.gaugeFunc(name: "winpower_exporter_history_available",
                                           help: "1 while the history database takes writes; 0 before the first or after a failed one.") {
                status.withLock { $0.state == "ok" } ? 1 : 0
            }
        } catch {
            throw .metrics(error)
        }
    }

    /// Its section of `/health`.
    package var health: FrontEndHealth? { FrontEndHealth(key: "history", value: status.withLock { $0 }) }

    /// The writer's status now.
    package var current: Status { status.withLock { $0 } }

    /// Nothing runs until cancelled; then the open slots are written (the part of each UPS's
    /// slot so far: a restart within it merges the rest) and the database is closed, waiting
    /// at most the graceful shutdown timeout (a disk that stalls does not hold the exit: the
    /// write goes on, or is lost with the process).
    package func run() async throws {
        await untilCancelled()
        let open = gathering.withLock { $0.accumulator.closed(before: .max) }
        // Stopped by a reload, the exporter goes on: no stop to journal; the history turned off
        // is journaled as the reload it is (nothing is left to journal the reload itself).
        let stopped: [HistoryEvent] = switch replaced.load(ordering: .relaxed) {
        case 1: []
        case 2: [exporterEvent(.reloaded, "the history is turned off (history.enabled: false)")]
        default: [exporterEvent(.exporterStopped, "wpexporter \(version)")]
        }
        let connection = self.connection
        let finished = await BoundedWait.completes(within: shutdownWait, on: ContinuousClock()) { done in
            queue.submit(.init(run: { [self] in
                write(open, stopped)
                connection.store?.database.close()
                connection.store = nil
                done()
            }, refuse: { _ in done() }))
        }
        if !finished {
            logger.warn("the history writer did not finish its last write in time; the slots in progress may be lost",
                        ["path": .string(path), "waited_s": .seconds(shutdownWait)])
        }
    }

    /// Takes each reading not taken before from `state`, and queues the slots it finishes.
    private func published(_ state: FleetState<C>) {
        let now = wallClock.now
        let (finished, events): ([HistorySlot], [HistoryEvent]) = gathering.withLock { gathering in
            var finished: [HistorySlot] = []
            let events = gathering.events.events(in: state, now: Int64(now.timeIntervalSince1970.rounded(.down)),
                                                battery: frontEnds().batteryHealthMeter)
            for server in state.servers {
                for reading in server.devices.readings {
                    let ups = HistoryUPS(server: server.name, device: reading.device.id)
                    if let taken = gathering.taken[ups], taken >= reading.readAt { continue }
                    gathering.taken[ups] = reading.readAt
                    let age = reading.readAt.duration(to: state.publishedAt)
                    let time = Int64((now.timeIntervalSince1970 - Double(age.components.seconds)).rounded(.down))
                    let sample = HistorySample(reading.device, at: time, energyKWh: server.totals[reading.device.id].map { $0.joules / 3_600_000 })
                    if let slot = gathering.accumulator.add(sample, of: ups) { finished.append(slot) }
                }
            }
            // A UPS no longer read: its slot is written once over.
            finished += gathering.accumulator.closed(before: Int64(now.timeIntervalSince1970) - HistoryTier.fiveMinutes.seconds)
            return (finished, events)
        }
        submitWrite(finished, events)
    }

    /// Queues a write of `slots` and `events` on the writer's thread; one that cannot run (no
    /// thread) is counted as a failure.
    private func submitWrite(_ slots: [HistorySlot], _ events: [HistoryEvent]) {
        guard !slots.isEmpty || !events.isEmpty else { return }
        let status = self.status
        queue.submit(.init(run: { [self] in write(slots, events) }, refuse: { _ in
            status.withLock { $0.failures += 1 }
        }))
    }

    /// On the writer's thread: opens the database when it is not open, writes `slots` and
    /// `events`, prunes once an hour; a failure is counted, shown, and logged when it starts.
    private func write(_ slots: [HistorySlot], _ events: [HistoryEvent] = []) {
        guard !slots.isEmpty || !events.isEmpty else { return }
        do throws(SQLiteError) {
            let store: HistoryStore
            if let open = connection.store {
                store = open
            } else {
                store = try HistoryStore(path: path)
                connection.store = store
            }
            try store.write(slots)
            let recorded = try store.record(events).count
            let now = wallClock.unixSeconds
            if connection.lastPrune.map({ now - $0 >= 3_600 }) ?? true {
                connection.lastPrune = now
                try store.prune(before: retention.mapValues { now - $0 })
            }
            try? written.increment(by: Double(slots.count))
            connection.warnedCode = nil
            let recovered = status.withLock { status -> Bool in
                defer { status.state = "ok"; status.lastError = nil; status.slotsWritten += slots.count; status.eventsWritten += recorded }
                return status.state == "failing"
            }
            if recovered { logger.info("the history database takes writes again", ["path": .string(path)]) }
        } catch {
            failed.increment()
            if error.code != 5, error.code != 6 {
                // Not a lock another process holds: open it again at the next write.
                connection.store?.database.close()
                connection.store = nil
            }
            status.withLock { status in
                status.state = "failing"
                status.lastError = error.description
                status.failures += 1
            }
            // Said when writes start failing, and again when the cause changes (a full disk, then
            // a read-only one); not at every write that fails the same way.
            if connection.warnedCode != error.code {
                connection.warnedCode = error.code
                logger.warn("the history database cannot be written; readings are not kept there until it can "
                            + "(collection, /metrics and the energy totals are not affected)",
                            ["path": .string(path), "error": .string(error.description), "slots": .int(slots.count)])
            }
        }
    }
}

extension HistorySample {
    /// What the history keeps of `device` as read at `time` (Unix seconds).
    init(_ device: Device, at time: Int64, energyKWh: Double?) {
        let readings = device.realtime
        var values: [HistoryMetric: Double] = [:]
        values[.loadWatts] = readings.loadTotalWatt
        values[.loadPercent] = readings.loadPercent
        values[.batteryCharge] = readings.batCapacity
        values[.batteryRuntime] = readings.batRemainTime
        values[.inputVoltage] = readings.inputVolt1
        values[.outputVoltage] = readings.outputVolt1
        values[.inputFrequency] = readings.inputFreq
        values[.temperature] = readings.upsTemperature
        self.init(time: time, values: values, mode: readings.mode, energyKWh: energyKWh)
    }
}

extension FrontEndFactory {
    /// The history writer of `history.*` (off with `history.enabled: false` or without a data
    /// directory); made again when `history.*` changes.
    package static var history: FrontEndFactory {
        FrontEndFactory(HistorySettings.self) { context throws(FrontEndError) in
            try HistoryWriter<C>.make(context)
        }
    }
}

extension HistoryWriter: ConfigurationObserving {
    /// Journals a reload applied (its summary) or refused (the keys at fault, never the values:
    /// a refused file's secrets are not the running ones the log masks; the log has the whole
    /// reason); notes that a reload stops it.
    package func configuration(_ event: ConfigurationEvent) {
        switch event {
        case .replaced(let bySuccessor): replaced.store(bySuccessor ? 1 : 2, ordering: .relaxed)
        case .reloaded(let summary): submitWrite([], [exporterEvent(.reloaded, logger.redactor.redact(summary))])
        case .refused(let reason): submitWrite([], [exporterEvent(.configurationRefused, Self.refusal(reason))])
        }
    }

    /// What the journal says of a refused configuration: the configuration keys its reason
    /// names (`history.retention_days`; words that begin with a section of the exporter's or `history`),
    /// and where the reason is.
    package static func refusal(_ reason: String) -> String {
        let sections = Set(ConfigSchema.exporter.adding(HistorySettings.self).sectionNames + ["servers"])
        var keys: [String] = []
        for word in reason.split(whereSeparator: { !($0.isLetter || $0.isNumber || "._[]".contains($0)) }) {
            var key = String(word)
            while key.hasSuffix(".") { key.removeLast() }
            while key.hasPrefix(".") { key.removeFirst() }
            let parts = key.split(separator: ".")
            guard parts.count >= 2, parts.allSatisfy({ part in
                part.first.map { $0.isLowercase && $0.isASCII } == true
                    && part.allSatisfy { ($0.isASCII && ($0.isLowercase || $0.isNumber)) || "_[]".contains($0) }
            }), sections.contains(String(parts[0])), !keys.contains(key) else { continue }
            keys.append(key)
        }
        let named = keys.prefix(8).joined(separator: ", ")
        return "the configuration was refused" + (named.isEmpty ? "" : " (\(named))") + "; the log says why"
    }

    /// An event of the exporter itself, now.
    func exporterEvent(_ kind: HistoryEvent.Kind, _ detail: String) -> HistoryEvent {
        HistoryEvent(time: wallClock.unixSeconds, server: "", kind: kind,
                     detail: String(detail.prefix(1_024)))
    }
}
