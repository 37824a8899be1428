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
        /// Totals of every known device after this cycle.
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
    }

    private struct Inner: Sendable {
        var integrator: EnergyIntegrator<C.Instant>
        var base: EnergyState
        var lastSave: C.Instant?
        var dirty = false
        var status: Status
    }

    /// The result of the startup load (source, quarantined files, legacy import).
    public let loaded: LoadedEnergyState
    private let persistence: PersistencePolicy
    private let store: any EnergyStore
    private let clock: C
    private let logger: Logger
    private let inner: Mutex<Inner>

    private init(configuration: EnergyConfiguration, persistence: PersistencePolicy,
                 store: any EnergyStore, clock: C, logger: Logger, loaded: LoadedEnergyState) {
        self.loaded = loaded
        self.persistence = persistence
        self.store = store
        self.clock = clock
        self.logger = logger
        var base = loaded.state
        base.devices = [:]
        let status = Status(stateWasReset: loaded.stateWasReset, persistFailures: 0, lastPersistError: nil, saves: 0)
        inner = Mutex(Inner(integrator: EnergyIntegrator(configuration: configuration, seed: loaded.state),
                            base: base, dirty: loaded.legacyImport != nil, status: status))
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

    /// Integrates one cycle's samples at the clock's current instant and persists per policy.
    ///
    /// - Parameter samples: one sample per device seen in this cycle.
    /// - Returns: the totals after the cycle and what was persisted.
    @discardableResult
    public func record(_ samples: [EnergySample]) -> CycleReport {
        record(samples, at: clock.now)
    }

    /// Integrates one cycle's samples taken at `instant` and persists per policy.
    @discardableResult
    public func record(_ samples: [EnergySample], at instant: C.Instant) -> CycleReport {
        inner.withLock { inner in
            let summary = inner.integrator.integrate(samples, at: instant)
            inner.dirty = true
            if !summary.gapDevices.isEmpty {
                logGaps(summary)
            }
            var persisted = false
            var failure: StorageError?
            let elapsed = inner.lastSave.map { $0.duration(to: instant) }
            if persistence.shouldPersist(sinceLastSave: elapsed) {
                failure = persist(&inner, at: instant)
                persisted = failure == nil
            }
            return CycleReport(totals: inner.integrator.totals, summary: summary,
                               persisted: persisted, persistError: failure)
        }
    }

    /// Saves the current totals now, whatever the policy (call on shutdown). Does nothing when
    /// nothing changed since the last successful save.
    ///
    /// - Throws: the store's error; totals remain in memory.
    public func flush() throws {
        let failure = inner.withLock { inner in inner.dirty ? persist(&inner, at: clock.now) : nil }
        if let failure { throw failure }
    }

    /// Totals of every known device.
    public var totals: [String: DeviceEnergy] { inner.withLock { $0.integrator.totals } }

    /// Persistence health and the startup reset flag.
    public var status: Status { inner.withLock { $0.status } }

    /// The state as it would be persisted now.
    public var state: EnergyState { inner.withLock { $0.integrator.state(base: $0.base) } }

    private func persist(_ inner: inout Inner, at instant: C.Instant) -> StorageError? {
        do {
            try store.save(inner.integrator.state(base: inner.base))
        } catch {
            let storageError = error as? StorageError
                ?? .system(operation: "save energy state", path: "", errno: 0, message: "\(error)")
            inner.status.persistFailures += 1
            if inner.status.lastPersistError == nil {
                logger.error("saving energy totals failed; keeping them in memory and retrying next cycle",
                             ["error": "\(storageError)"])
            }
            inner.status.lastPersistError = storageError.description
            return storageError
        }
        if inner.status.lastPersistError != nil {
            logger.info("saving energy totals works again", ["failures": .int(inner.status.persistFailures)])
        }
        inner.status.lastPersistError = nil
        inner.status.saves += 1
        inner.lastSave = instant
        inner.dirty = false
        return nil
    }

    private func logGaps(_ summary: EnergyIntegrator<C.Instant>.Summary) {
        let shown = summary.gapDevices.prefix(10).joined(separator: ",")
        logger.warn("skipped intervals longer than energy.max_gap; no energy was guessed for them",
                    ["devices": .int(summary.gapDevices.count), "device_ids": "\(shown)",
                     "longest_gap_s": .seconds(summary.longestGap)])
    }
}
