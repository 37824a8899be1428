public import FoundationEssentials
import Synchronization
public import WPLogging
public import WPStorage

/// Energy accounting for a collector: integrates each cycle's samples on a monotonic clock and
/// persists the totals through an `EnergyStore` according to a `PersistencePolicy`.
///
/// Lifecycle:
/// 1. at startup, ``open(configuration:persistence:store:clock:logger:)`` loads the stored
///    state (recovering from damage, importing the previous exporter's files once);
/// 2. every collection cycle, ``record(_:)`` with all devices' samples: integrates in memory,
///    then asks the meter's writer thread to save (every cycle with `sync_write`, else every
///    `flush_interval`) and returns without waiting for the disk;
/// 3. at shutdown, ``close()`` (no more readings), then ``flush(timeout:)`` or
///    ``save(timeout:)`` waits for the latest state to be on disk, with a deadline; then the
///    caller closes the store.
///
/// Saves run on one thread of the meter's own (`StateWriter`), never on the caller's: a disk
/// whose `fsync` takes seconds delays no collection and blocks no thread of the Swift pool. The
/// writer always saves the latest state asked for: a newer state replaces one still queued.
/// A failed save never loses energy: totals stay in memory, the failure is logged and counted
/// in ``status``, and the next cycle tries again. Totals come from the monotonic clock only,
/// so wall-clock jumps cannot change them; a restart is a gap (nothing is guessed for the time
/// the exporter was down).
///
/// ```swift
/// let meter = try EnergyMeter.open(store: store, clock: ContinuousClock(), logger: logger)
/// let report = meter.record(devices.map { EnergySample(deviceID: $0.id, watts: $0.watts,
///                                                      connected: $0.connected) })
/// let wh = report.totals["ups-1"]?.wattHours
/// meter.close()                               // on shutdown: no more readings
/// try await meter.save(timeout: .seconds(5))  // the totals are on disk
/// ```
public final class EnergyMeter<C: Clock>: Sendable where C.Duration == Duration {
    /// What one cycle did.
    public struct CycleReport: Sendable {
        /// Totals of this cycle's devices after it (a meter shared by many servers does not
        /// copy the others' totals on every cycle).
        public var totals: [String: DeviceEnergy]
        /// Integration counts (unusable samples, gaps).
        public var summary: EnergyIntegrator<C.Instant>.Summary
        /// Whether this cycle asked the writer thread to save (per the persistence policy).
        /// The save itself happens later; ``status`` tells how saves went.
        public var saveRequested: Bool
        /// Readings not recorded: those of a pipeline that no longer owns its keys
        /// (``lease(keyPrefix:)``), of a server whose totals moved away, or after ``close()``.
        public var dropped: Int = 0
        /// The generation of the save this cycle asked for (``saved(_:timeout:)``), if any.
        public var saveGeneration: UInt64?
    }

    /// The right to record readings under one key prefix (one server's devices). Taking a new
    /// lease for a prefix ends the previous one: readings recorded with it are dropped, so a
    /// pipeline that was replaced, or whose collection outlived the graceful timeout, can never
    /// record beside its successor.
    public struct Lease: Sendable, Hashable {
        /// The key prefix the lease covers (`EnergyKey/prefix(server:)`; empty for one server).
        public let keyPrefix: String
        let id: UInt64
    }

    /// A wait for a save that did not end in time; the save goes on.
    public struct SaveTimeout: Error, CustomStringConvertible {
        /// How long the caller waited.
        public var waited: Duration
        /// `energy totals not saved within <waited> …`: the wait, and that the save goes on.
        public var description: String {
            "energy totals not saved within \(waited) (the disk is slow or stuck); the save goes on in the background"
        }
    }

    /// Health of the meter, for self-metrics.
    public struct Status: Sendable, Equatable {
        /// Stored totals were lost at startup (state file and backup both bad).
        public var stateWasReset: Bool
        /// Saves that failed since startup.
        public var persistFailures: Int
        /// The last save failure's text, `nil` once a save succeeds again.
        public var lastPersistError: String?
        /// Successful saves since startup.
        public var saves: Int
        /// Power readings refused as implausible (above their bound) since startup, all devices.
        public var rejectedSamples: Int = 0
    }

    private struct Inner: Sendable {
        var integrator: EnergyIntegrator<C.Instant>
        var base: EnergyState
        /// When the policy last asked for a save (`nil`: never, or the last save failed, so
        /// the next cycle saves again).
        var lastSaveRequest: C.Instant?
        /// Grows with every change of the state; the writer saves by generation.
        var generation: UInt64 = 0
        /// The newest generation known to be on disk.
        var savedGeneration: UInt64 = 0
        /// The totals of `savedGeneration` (those loaded at the start before any save): what a
        /// crash now would restore, so what ``servedTotals(keyPrefix:)`` never exceeds.
        var saved: [String: DeviceEnergy] = [:]
        var status: Status
        /// The current lease of each key prefix.
        var leases: [String: UInt64] = [:]
        var nextLease: UInt64 = 0
        /// After ``close()``: readings are dropped and no save is asked for.
        var closed = false
        /// Devices whose implausible reading was already logged (once per device).
        var loggedImplausible: Set<String> = []
        /// Servers whose totals moved away (``rekey(closing:_:)``): readings keyed under them
        /// are dropped until ``reopen(server:)``; the empty name stands for unqualified keys.
        var closedServers: Set<String> = []
    }

    /// What ``rekey(closing:_:)`` did.
    public struct Rekeying: Sendable {
        /// Keys moved.
        public var moved: Int
        /// Old keys left where they were because their new key already held a total (logged).
        public var skipped: [String]
    }

    /// The result of the startup load (source, quarantined files, legacy import).
    public let loaded: LoadedEnergyState
    private let persistence: PersistencePolicy
    private let store: any EnergyStore
    private let clock: C
    private let logger: WPLogger
    /// Held for in-memory work only, never across I/O nor while logging.
    private let inner: Mutex<Inner>
    /// Saves on a thread of its own; its completion takes `inner` (never the reverse).
    private let writer: StateWriter

    private init(configuration: EnergyConfiguration, persistence: PersistencePolicy,
                 store: any EnergyStore, clock: C, logger: WPLogger, loaded: LoadedEnergyState, rekeyed: Bool = false) {
        self.loaded = loaded
        self.persistence = persistence
        self.store = store
        self.clock = clock
        self.logger = logger
        var base = loaded.state
        base.devices = [:]
        // The other components' sections are the store's (``EnergyStore/sections``).
        base.sections = [:]
        let status = Status(stateWasReset: loaded.stateWasReset, persistFailures: 0, lastPersistError: nil, saves: 0)
        let dirty = loaded.legacyImport != nil || rekeyed
        let integrator = EnergyIntegrator<C.Instant>(configuration: configuration, seed: Self.plausible(loaded.state, logger: logger))
        inner = Mutex(Inner(integrator: integrator, base: base, generation: dirty ? 1 : 0, saved: integrator.totals,
                            status: status))
        writer = StateWriter(save: { state in
            do {
                try store.save(state)
                return nil
            } catch {
                return error as? StorageError
                    ?? .system(operation: "save energy state", path: "", errno: 0, message: "\(error)")
            }
        })
    }

    /// `state` without the devices whose stored total or discharge is out of range (not 0 to
    /// ``StoredDeviceEnergy/maximumStored``: a record made to pass the checksum, or damage the
    /// format cannot see), each named in an error with its value: such a device counts from zero
    /// (a counter reset), never from 10³⁰⁰.
    static func plausible(_ state: EnergyState, logger: WPLogger) -> EnergyState {
        var state = state
        for (key, device) in state.devices.sorted(by: { $0.key < $1.key }) {
            let amounts = [("joules", device.joules), ("discharge_joules", device.ledger.dischargeJoules),
                           ("on_battery_seconds", device.ledger.onBatterySeconds)]
            guard let bad = amounts.first(where: { !StoredDeviceEnergy.isPlausible($0.1) }) else { continue }
            logger.error("a stored energy record is out of range (0 to 1e18) and dropped; the device counts from zero",
                         ["device": .string(key), "field": .string(bad.0), "value": .string(String(bad.1))])
            state.devices[key] = nil
        }
        return state
    }

    /// Loads the stored totals and returns a meter continuing from them.
    ///
    /// - Parameters:
    ///   - configuration: integration settings (max gap).
    ///   - persistence: when cycles save (from `storage.sync_write` / `storage.flush_interval`).
    ///   - store: where totals are kept.
    ///   - clock: a monotonic clock; tests pass a manual clock.
    ///   - logger: receives gap and persistence reports.
    /// - Returns: the meter; its ``loaded`` property describes where the totals came from.
    /// - Throws: the store's error when storage cannot be used at all.
    public static func open(configuration: EnergyConfiguration = EnergyConfiguration(),
                            persistence: PersistencePolicy = PersistencePolicy(),
                            store: any EnergyStore, clock: C, logger: WPLogger) throws -> EnergyMeter {
        let loaded = try store.load()
        return EnergyMeter(configuration: configuration, persistence: persistence, store: store,
                           clock: clock, logger: logger, loaded: loaded)
    }

    /// Loads the stored totals, moves some of them to new keys, and returns a meter continuing
    /// from them; the next save persists the new keys.
    ///
    /// Everything stored under a key travels with it (totals, gaps and whatever else the
    /// state keeps per device). A key whose new key already holds a total is left where it is
    /// (logged): nothing is overwritten, nothing dropped.
    ///
    /// - Parameters:
    ///   - configuration: the integration's bounds, as for ``open(configuration:persistence:store:clock:logger:)``.
    ///   - persistence: when totals are saved.
    ///   - store: where the totals are kept.
    ///   - clock: the monotonic clock samples are timed on.
    ///   - logger: where moves and gaps are logged.
    ///   - renaming: given the stored keys, returns `old → new` for those to move.
    /// - Returns: the meter and the number of keys moved.
    /// - Throws: the store's error when storage cannot be used at all.
    public static func open(configuration: EnergyConfiguration = EnergyConfiguration(),
                            persistence: PersistencePolicy = PersistencePolicy(),
                            store: any EnergyStore, clock: C, logger: WPLogger,
                            renaming: ([String]) -> [String: String]) throws -> (meter: EnergyMeter, moved: Int) {
        var loaded = try store.load()
        var moved = 0
        for (old, new) in renaming(Array(loaded.state.devices.keys)).sorted(by: { $0.key < $1.key }) where old != new {
            guard let entry = loaded.state.devices[old] else { continue }
            guard loaded.state.devices[new] == nil else {
                logger.warn("stored energy not moved: the new key already holds a total; both are kept",
                            ["from": .string(old), "to": .string(new)])
                continue
            }
            loaded.state.devices[new] = entry
            loaded.state.devices[old] = nil
            moved += 1
        }
        let meter = EnergyMeter(configuration: configuration, persistence: persistence, store: store,
                                clock: clock, logger: logger, loaded: loaded, rekeyed: moved > 0)
        return (meter, moved)
    }

    /// Integrates one cycle's samples at the clock's current instant and persists per policy.
    ///
    /// - Parameter samples: one sample per device seen in this cycle.
    /// - Returns: the totals after the cycle and what was persisted.
    @discardableResult
    public func record(_ samples: [EnergySample]) -> CycleReport {
        record(samples, at: clock.now)
    }

    /// Integrates one cycle's samples taken at `instant` and asks for a save per policy.
    ///
    /// Never waits for I/O: the outage ledger is updated in the same step, and the save (with
    /// the totals, never one of its own) runs on the writer thread. A slow disk therefore
    /// delays neither this call nor the next, nor any reader.
    ///
    /// - Parameters:
    ///   - samples: one sample per device seen in this cycle.
    ///   - instant: the monotonic instant they were taken.
    ///   - wall: their wall-clock time, for the ledger's timestamps only (`nil`: not recorded).
    ///   - lease: the caller's right to record under its key prefix (``lease(keyPrefix:)``);
    ///     readings of a lease that was superseded are dropped. `nil`: no check.
    @discardableResult
    public func record(_ samples: [EnergySample], at instant: C.Instant, wall: Date? = nil,
                       lease: Lease? = nil) -> CycleReport {
        typealias Outcome = (summary: EnergyIntegrator<C.Instant>.Summary, pending: (EnergyState, UInt64)?,
                             totals: [String: DeviceEnergy], firstImplausible: [EnergyIntegrator<C.Instant>.Rejection],
                             dropped: Int, superseded: Bool)
        let (summary, pending, totals, firstImplausible, dropped, superseded) = inner.withLock { inner -> Outcome in
            let current = lease.map { inner.leases[$0.keyPrefix] == $0.id } ?? true
            guard !inner.closed, current else {
                return (EnergyIntegrator<C.Instant>.Summary(), nil, [:], [], samples.count, true)
            }
            var accepted = samples
            if !inner.closedServers.isEmpty {
                accepted.removeAll { sample in
                    inner.closedServers.contains(EnergyKey.split(sample.deviceID)?.server ?? "")
                }
            }
            let summary = inner.integrator.integrate(accepted, at: instant, wall: wall)
            inner.generation += 1
            inner.status.rejectedSamples += summary.implausible.count
            let firstImplausible = summary.implausible.filter { inner.loggedImplausible.insert($0.deviceID).inserted }
            let elapsed = inner.lastSaveRequest.map { $0.duration(to: instant) }
            var pending: (EnergyState, UInt64)?
            if persistence.shouldPersist(sinceLastSave: elapsed) {
                inner.lastSaveRequest = instant
                pending = (inner.integrator.state(base: inner.base), inner.generation)
            }
            var totals: [String: DeviceEnergy] = [:]
            totals.reserveCapacity(accepted.count)
            for sample in accepted { totals[sample.deviceID] = inner.integrator.total(for: sample.deviceID) }
            return (summary, pending, totals, firstImplausible, samples.count - accepted.count, false)
        }
        if let pending { submit(pending.0, generation: pending.1) }
        if superseded {
            if dropped > 0 {
                logger.debug("readings of a replaced or stopped pipeline not recorded", ["devices": .int(dropped)])
            }
        } else if dropped > 0 {
            logger.warn("readings of a server whose totals moved away (renamed) not recorded", ["devices": .int(dropped)])
        }
        if !summary.gapDevices.isEmpty {
            logGaps(summary)
        }
        for rejection in firstImplausible {
            logger.warn("implausible power reading not integrated (logged once per device)",
                        ["device_id": "\(rejection.deviceID)", "watts": .double(rejection.watts),
                         "max_watts": .double(rejection.maxWatts)])
        }
        return CycleReport(totals: totals, summary: summary, saveRequested: pending != nil, dropped: dropped,
                           saveGeneration: pending?.1)
    }

    /// Makes the caller the only one recording under `keyPrefix`: any earlier lease of the same
    /// prefix ends, and readings recorded with it are dropped from now on.
    ///
    /// - Parameter keyPrefix: the server's key prefix (`EnergyKey/prefix(server:)`).
    /// - Returns: the lease to pass to ``record(_:at:wall:lease:)``.
    public func lease(keyPrefix: String) -> Lease {
        inner.withLock { inner in
            inner.nextLease += 1
            inner.leases[keyPrefix] = inner.nextLease
            return Lease(keyPrefix: keyPrefix, id: inner.nextLease)
        }
    }

    /// Moves totals to new keys while the meter runs (a server renamed by a configuration
    /// reload), then asks for a save at once, whatever the policy (``save(timeout:)`` waits for it).
    ///
    /// The move is atomic: no cycle integrates between reading the keys and moving them, so no
    /// total is lost or counted twice. Everything kept per key travels with it, the chain in
    /// progress included (see ``EnergyIntegrator/rekey(_:)``); a key whose new key already holds a
    /// total stays where it is (logged). Readings keyed under a server of `closing` that arrive
    /// afterwards (a collection that outlived its pipeline) are dropped, so they cannot bring the
    /// old keys back, until ``reopen(server:)``. A failed save keeps everything in memory; the
    /// next cycle saves again.
    ///
    /// - Parameters:
    ///   - closing: the servers whose keys move away (`EnergyKey` server names; the empty
    ///     name for the unqualified keys of a `winpower`-only configuration).
    ///   - plan: given the keys now, returns `old → new` for those to move.
    /// - Returns: what moved.
    @discardableResult
    public func rekey(closing: Set<String>, _ plan: ([String]) -> [String: String]) -> Rekeying {
        let (result, pending, generation) = inner.withLock { inner in
            let moves = plan(Array(inner.integrator.totals.keys))
            let result = inner.integrator.rekey(moves)
            // The saved totals travel with their keys, so a renamed server's counters are served
            // at once, not from zero until the save below ends.
            for old in result.moved {
                if let new = moves[old], let saved = inner.saved.removeValue(forKey: old) { inner.saved[new] = saved }
            }
            inner.closedServers.formUnion(closing)
            inner.generation += 1
            inner.lastSaveRequest = clock.now
            return (result, inner.integrator.state(base: inner.base), inner.generation)
        }
        submit(pending, generation: generation)
        for old in result.skipped {
            logger.warn("energy total not moved: the new key already holds a total; both are kept", ["from": .string(old)])
        }
        return Rekeying(moved: result.moved.count, skipped: result.skipped)
    }

    /// Accepts readings keyed under `server` again (a server of that name is configured anew
    /// after ``rekey(closing:_:)`` moved its totals away).
    public func reopen(server: String) {
        _ = inner.withLock { $0.closedServers.remove(server) }
    }

    /// Stops recording: readings recorded from now on are dropped (a collection that outlived
    /// the graceful shutdown timeout cannot change the totals after the final save). Saves
    /// already asked for, and those of ``flush(timeout:)`` and ``save(timeout:)``, still run.
    public func close() {
        inner.withLock { $0.closed = true }
    }

    /// How long ``flush(timeout:)`` and ``waitForSaves(timeout:)`` wait unless told: one
    /// minute. Every wait for the writer has a deadline.
    public static var defaultWaitTimeout: Duration { .seconds(60) }

    /// Saves the current totals now, whatever the policy, and blocks until they are on disk or
    /// `timeout` passed. Does nothing when nothing changed since the last successful save.
    /// Blocks its thread: call it from a thread of your own, or use ``save(timeout:)``.
    ///
    /// - Parameter timeout: how long to wait for the writer; ``defaultWaitTimeout`` by default.
    /// - Throws: the store's error (totals remain in memory), or ``SaveTimeout`` when the save
    ///   did not end in time (it goes on).
    public func flush(timeout: Duration = EnergyMeter.defaultWaitTimeout) throws {
        guard let generation = requestSave() else { return }
        try Self.check(writer.waitUntilSaved(generation, timeout: timeout), waited: timeout)
    }

    /// Saves the current totals now, whatever the policy, and suspends until they are on disk
    /// or `timeout` passed; no thread is blocked meanwhile. Does nothing when nothing changed
    /// since the last successful save.
    ///
    /// - Parameter timeout: how long to wait for the writer.
    /// - Throws: the store's error (totals remain in memory), or ``SaveTimeout`` when the save
    ///   did not end in time (it goes on).
    public func save(timeout: Duration) async throws {
        guard let generation = requestSave() else { return }
        try Self.check(await writer.saved(generation, timeout: timeout), waited: timeout)
    }

    /// Blocks until every save asked for so far has ended (without asking for one), or
    /// `timeout` passed. For tests and benchmarks that count saves; never call it from the
    /// Swift concurrency pool in production code.
    ///
    /// - Throws: the last save's error, or ``SaveTimeout``.
    public func waitForSaves(timeout: Duration = EnergyMeter.defaultWaitTimeout) throws {
        try Self.check(writer.waitUntilSaved(writer.newestQueued, timeout: timeout), waited: timeout)
    }

    /// Hands the current state to the writer unless it is on disk already; returns the
    /// generation to wait for (`nil`: nothing to save).
    private func requestSave() -> UInt64? {
        let pending = inner.withLock { inner -> (EnergyState, UInt64)? in
            // The other components' sections of the file changed: saved too.
            guard inner.generation != inner.savedGeneration || store.sections.hasUnwrittenChanges else { return nil }
            // A generation of its own, so a state whose save failed is saved again.
            inner.generation += 1
            return (inner.integrator.state(base: inner.base), inner.generation)
        }
        guard let (state, generation) = pending else { return nil }
        submit(state, generation: generation)
        return generation
    }

    private func submit(_ state: EnergyState, generation: UInt64) {
        writer.submit(state, generation: generation) { [self] generation, failure in
            saveEnded(generation, failure, state: state)
        }
    }

    /// Suspends until the save `report`'s cycle asked for has ended, or `timeout` passed (the
    /// save goes on); returns at once when the cycle asked for none. A collection waits here
    /// before it publishes, so the totals it serves are the ones on disk.
    ///
    /// - Returns: whether the save covering the cycle succeeded in time.
    @discardableResult
    public func saved(_ report: CycleReport, timeout: Duration) async -> Bool {
        guard let generation = report.saveGeneration else { return false }
        return await writer.saved(generation, timeout: timeout) == .saved
    }

    private static func check(_ outcome: StateWriter.Outcome, waited: Duration) throws {
        switch outcome {
        case .saved: return
        case .failed(let failure): throw failure
        case .timedOut: throw SaveTimeout(waited: waited)
        }
    }

    /// Totals of every known device. Never waits for a save.
    public var totals: [String: DeviceEnergy] { inner.withLock { $0.integrator.totals } }

    /// The totals to serve of the devices whose key starts with `prefix`, keyed without it:
    /// ``totals(keyPrefix:)`` with every counter held at most at its last saved value
    /// (``DeviceEnergy/heldAt(_:)``), so a served counter never exceeds what a crash now would
    /// restore and never goes backwards across one. Never waits for a save.
    public func servedTotals(keyPrefix prefix: String) -> [String: DeviceEnergy] {
        inner.withLock { inner in
            var totals = inner.integrator.totals(keyPrefix: prefix)
            for (id, total) in totals {
                totals[id] = total.heldAt(inner.saved[prefix + id])
            }
            return totals
        }
    }

    /// The totals of the devices whose key starts with `prefix`, keyed without it
    /// (``EnergyIntegrator/totals(keyPrefix:)``). Never waits for a save.
    public func totals(keyPrefix prefix: String) -> [String: DeviceEnergy] {
        inner.withLock { $0.integrator.totals(keyPrefix: prefix) }
    }

    /// Implausible readings refused per device since startup. Never waits for a save.
    public var rejectedSamples: [String: Int] { inner.withLock { $0.integrator.rejectedSamples } }

    /// Persistence health and the startup reset flag. Never waits for a save.
    public var status: Status { inner.withLock { $0.status } }

    /// The state as it would be persisted now. Never waits for a save.
    public var state: EnergyState { inner.withLock { $0.integrator.state(base: $0.base) } }

    /// Records a save's outcome (on the writer's thread), then logs a change of state outside
    /// the lock.
    private func saveEnded(_ generation: UInt64, _ failure: StorageError?, state: EnergyState) {
        // Converted on the writer's thread, outside the lock.
        let savedTotals = failure == nil ? state.devices.mapValues(DeviceEnergy.init) : nil
        let previous = inner.withLock { inner -> Status in
            let previous = inner.status
            if let failure {
                inner.status.persistFailures += 1
                inner.status.lastPersistError = failure.description
                inner.lastSaveRequest = nil // the next cycle tries again
            } else {
                inner.status.lastPersistError = nil
                inner.status.saves += 1
                if generation > inner.savedGeneration, let savedTotals {
                    inner.saved = savedTotals
                }
                inner.savedGeneration = max(inner.savedGeneration, generation)
            }
            return previous
        }
        // Logged when a streak of failures starts and when its cause changes (a data directory
        // that could not be recreated, then locked by another process), not at every cycle.
        if let failure, previous.lastPersistError != failure.description {
            logger.error("saving energy totals failed; keeping them in memory and retrying next cycle",
                         ["error": "\(failure)"])
        } else if failure == nil, previous.lastPersistError != nil {
            logger.info("saving energy totals works again", ["failures": .int(previous.persistFailures)])
        }
    }

    private func logGaps(_ summary: EnergyIntegrator<C.Instant>.Summary) {
        let shown = summary.gapDevices.prefix(10).joined(separator: ",")
        logger.warn("skipped intervals longer than energy.max_gap; no energy was guessed for them",
                    ["devices": .int(summary.gapDevices.count), "device_ids": "\(shown)",
                     "longest_gap_s": .seconds(summary.longestGap)])
    }
}
