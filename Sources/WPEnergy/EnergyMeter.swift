import FoundationEssentials
import Synchronization
import WPLogging
import WPStorage

/// Energy accounting for a collector: integrates each cycle's samples on a monotonic clock and
/// persists the totals through an ``EnergyStore`` according to a ``PersistencePolicy``.
///
/// Lifecycle:
/// 1. at startup, ``open(configuration:persistence:store:clock:logger:)`` loads the stored
///    state (recovering from damage, importing the previous exporter's files once);
/// 2. every collection cycle, ``record(_:)`` with all devices' samples: integrates, then saves
///    at most once (every cycle with `sync_write`, else every `flush_interval`);
/// 3. at shutdown, ``flush()`` saves whatever the policy says, then the caller closes the store.
///
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
/// try meter.flush()   // on shutdown
/// ```
public final class EnergyMeter<C: Clock>: Sendable where C.Duration == Duration {
    /// What one cycle did.
    public struct CycleReport: Sendable {
        /// Totals of this cycle's devices after it (a meter shared by many servers does not
        /// copy the others' totals on every cycle).
        public var totals: [String: DeviceEnergy]
        /// Integration counts (unusable samples, gaps).
        public var summary: EnergyIntegrator<C.Instant>.Summary
        /// Whether the state was saved in this cycle.
        public var persisted: Bool
        /// The save failure of this cycle, if any (totals are kept and retried next cycle).
        public var persistError: StorageError?
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
        var lastSave: C.Instant?
        var dirty = false
        var status: Status
        /// Devices whose implausible reading was already logged (once per device).
        var loggedImplausible: Set<String> = []
        /// Servers whose totals moved away (``rekey(closing:_:)``): readings keyed under them
        /// are dropped until ``reopen(server:)``.
        var closedServers: Set<String> = []
    }

    /// What ``rekey(closing:_:)`` did.
    public struct Rekeying: Sendable {
        /// Keys moved.
        public var moved: Int
        /// Old keys left where they were because their new key already held a total (logged).
        public var skipped: [String]
        /// The save failure, if any (the moved totals stay in memory and the next cycle saves).
        public var persistError: StorageError?
    }

    /// The result of the startup load (source, quarantined files, legacy import).
    public let loaded: LoadedEnergyState
    private let persistence: PersistencePolicy
    private let store: any EnergyStore
    private let clock: C
    private let logger: Logger
    /// Lock order: `saving` → `inner`. `inner` is never held across I/O; `saving` is held
    /// across a save and taken only by ``record(_:at:)`` and ``flush()``.
    private let inner: Mutex<Inner>
    private let saving = Mutex(())

    private init(configuration: EnergyConfiguration, persistence: PersistencePolicy,
                 store: any EnergyStore, clock: C, logger: Logger, loaded: LoadedEnergyState, rekeyed: Bool = false) {
        self.loaded = loaded
        self.persistence = persistence
        self.store = store
        self.clock = clock
        self.logger = logger
        var base = loaded.state
        base.devices = [:]
        let status = Status(stateWasReset: loaded.stateWasReset, persistFailures: 0, lastPersistError: nil, saves: 0)
        inner = Mutex(Inner(integrator: EnergyIntegrator(configuration: configuration, seed: loaded.state),
                            base: base, dirty: loaded.legacyImport != nil || rekeyed, status: status))
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
                            store: any EnergyStore, clock: C, logger: Logger) throws -> EnergyMeter {
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
    ///   - renaming: given the stored keys, returns `old → new` for those to move.
    ///   - others: as ``open(configuration:persistence:store:clock:logger:)``.
    /// - Returns: the meter and the number of keys moved.
    /// - Throws: the store's error when storage cannot be used at all.
    public static func open(configuration: EnergyConfiguration = EnergyConfiguration(),
                            persistence: PersistencePolicy = PersistencePolicy(),
                            store: any EnergyStore, clock: C, logger: Logger,
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

    /// Integrates one cycle's samples taken at `instant` and persists per policy.
    ///
    /// The outage ledger is updated in the same step and saved with the totals: it never causes
    /// a save (nor an fsync) of its own. The save runs outside the lock that ``totals``,
    /// ``status`` and ``state`` take: a slow disk delays this call (and the next cycle's),
    /// never a reader.
    ///
    /// - Parameters:
    ///   - samples: one sample per device seen in this cycle.
    ///   - instant: the monotonic instant they were taken.
    ///   - wall: their wall-clock time, for the ledger's timestamps only (`nil`: not recorded).
    @discardableResult
    public func record(_ samples: [EnergySample], at instant: C.Instant, wall: Date? = nil) -> CycleReport {
        saving.withLock { _ in
            let (summary, pending, totals, firstImplausible, dropped) = inner.withLock { inner in
                var accepted = samples
                if !inner.closedServers.isEmpty {
                    accepted.removeAll { sample in
                        EnergyKey.split(sample.deviceID).map { inner.closedServers.contains($0.server) } ?? false
                    }
                }
                let summary = inner.integrator.integrate(accepted, at: instant, wall: wall)
                inner.dirty = true
                inner.status.rejectedSamples += summary.implausible.count
                let firstImplausible = summary.implausible.filter { inner.loggedImplausible.insert($0.deviceID).inserted }
                let elapsed = inner.lastSave.map { $0.duration(to: instant) }
                let pending = persistence.shouldPersist(sinceLastSave: elapsed)
                    ? inner.integrator.state(base: inner.base) : nil
                var totals: [String: DeviceEnergy] = [:]
                totals.reserveCapacity(accepted.count)
                for sample in accepted { totals[sample.deviceID] = inner.integrator.total(for: sample.deviceID) }
                return (summary, pending, totals, firstImplausible, samples.count - accepted.count)
            }
            if dropped > 0 {
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
            let failure = pending.flatMap { persist($0, at: instant) }
            return CycleReport(totals: totals, summary: summary, persisted: pending != nil && failure == nil,
                               persistError: failure)
        }
    }

    /// Moves totals to new keys while the meter runs (a server renamed by a configuration
    /// reload), then saves at once, whatever the policy.
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
    ///   - closing: the servers whose keys move away (``EnergyKey`` server names).
    ///   - plan: given the keys now, returns `old → new` for those to move.
    /// - Returns: what moved and how the save went.
    @discardableResult
    public func rekey(closing: Set<String>, _ plan: ([String]) -> [String: String]) -> Rekeying {
        saving.withLock { _ in
            let (result, pending) = inner.withLock { inner -> ((moved: [String], skipped: [String]), EnergyState) in
                let result = inner.integrator.rekey(plan(Array(inner.integrator.totals.keys)))
                inner.closedServers.formUnion(closing)
                inner.dirty = true
                return (result, inner.integrator.state(base: inner.base))
            }
            for old in result.skipped {
                logger.warn("energy total not moved: the new key already holds a total; both are kept", ["from": .string(old)])
            }
            let failure = persist(pending, at: clock.now)
            return Rekeying(moved: result.moved.count, skipped: result.skipped, persistError: failure)
        }
    }

    /// Accepts readings keyed under `server` again (a server of that name is configured anew
    /// after ``rekey(closing:_:)`` moved its totals away).
    public func reopen(server: String) {
        _ = inner.withLock { $0.closedServers.remove(server) }
    }

    /// Saves the current totals now, whatever the policy (call on shutdown). Does nothing when
    /// nothing changed since the last successful save.
    ///
    /// - Throws: the store's error; totals remain in memory.
    public func flush() throws {
        let failure = saving.withLock { _ -> StorageError? in
            let pending = inner.withLock { inner in inner.dirty ? inner.integrator.state(base: inner.base) : nil }
            return pending.flatMap { persist($0, at: clock.now) }
        }
        if let failure { throw failure }
    }

    /// Totals of every known device. Never waits for a save.
    public var totals: [String: DeviceEnergy] { inner.withLock { $0.integrator.totals } }

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

    /// Writes `pending` (a copy taken under the lock) with the lock released, then records the
    /// outcome. Called with `saving` held, so saves never overlap nor reorder, and no cycle
    /// integrates between the copy and the outcome.
    private func persist(_ pending: EnergyState, at instant: C.Instant) -> StorageError? {
        let failure: StorageError?
        do {
            try store.save(pending)
            failure = nil
        } catch {
            failure = error as? StorageError
                ?? .system(operation: "save energy state", path: "", errno: 0, message: "\(error)")
        }
        let previous = inner.withLock { inner -> Status in
            let previous = inner.status
            if let failure {
                inner.status.persistFailures += 1
                inner.status.lastPersistError = failure.description
            } else {
                inner.status.lastPersistError = nil
                inner.status.saves += 1
                inner.lastSave = instant
                inner.dirty = false
            }
            return previous
        }
        if let failure, previous.lastPersistError == nil {
            logger.error("saving energy totals failed; keeping them in memory and retrying next cycle",
                         ["error": "\(failure)"])
        } else if failure == nil, previous.lastPersistError != nil {
            logger.info("saving energy totals works again", ["failures": .int(previous.persistFailures)])
        }
        return failure
    }

    private func logGaps(_ summary: EnergyIntegrator<C.Instant>.Summary) {
        let shown = summary.gapDevices.prefix(10).joined(separator: ",")
        logger.warn("skipped intervals longer than energy.max_gap; no energy was guessed for them",
                    ["devices": .int(summary.gapDevices.count), "device_ids": "\(shown)",
                     "longest_gap_s": .seconds(summary.longestGap)])
    }
}
