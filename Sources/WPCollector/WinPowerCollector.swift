public import FoundationEssentials
import Synchronization
public import WPClient
public import WPEnergy
public import WPLogging
import WPMetrics
import WPStorage
import WPRuntime
public import WPWallClock

/// Runs collection cycles and publishes the latest ``MetricsSnapshot``.
///
/// One ``collect()`` call fetches every device from WinPower, integrates their power into
/// energy through the `WPEnergy/EnergyMeter` (whose writer thread persists the totals), builds
/// every metric family under its state lock, then, with the lock released, encodes them once in
/// both exposition formats, gzips both at once (two child tasks) and swaps the new snapshot in.
/// ``snapshot`` and ``health`` only copy a published value under a mutex that is held for
/// nothing else, so `/metrics`, `/health` and `/-/ready` never wait on WinPower, on the disk,
/// nor on a rendering in progress. Lock order (see docs/architecture.md): the meter's lock
/// is taken and released before `state`; `published` and `publishedHealth` are leaves. Each
/// rendering gets a generation under `state`; a snapshot encoded after a newer one was
/// published is dropped, so snapshots never go back in time.
///
/// A failed cycle is counted by `WPClient/ClientError/Kind` and keeps energy counters; the
/// instantaneous gauges of a device stay until its last successful reading is older than
/// ``CollectorConfiguration/stalenessWindow``, then disappear (and come back with the next
/// successful reading). A device missing from a successful readout is withdrawn the same way.
/// Withdrawal happens in the next snapshot published: the next collection's, or the one
/// ``recordSkippedCollections(total:)`` publishes while a collection hangs.
///
/// Calls to ``collect()`` are meant to come from one scheduler that never overlaps them;
/// overlapping calls are still safe (each applies its result atomically).
///
/// ```swift
/// let collector = WinPowerCollector(configuration: CollectorConfiguration(interval: .seconds(5)),
///                           client: client, meter: meter, clock: ContinuousClock(),
///                           wallClock: .system, logger: logger)
/// await collector.collect()
/// let body = collector.snapshot.text
/// ```
public final class WinPowerCollector<C: Clock>: Sendable where C.Duration == Duration {
    /// The configuration given at creation.
    public let configuration: CollectorConfiguration
    private let client: any WinPowerClient
    private let meter: EnergyMeter<C>
    private let clock: C
    private let wallClock: WallClock
    private let logger: WPLogger
    private let state: Mutex<CollectorState<C.Instant>>
    private let published: Mutex<(snapshot: MetricsSnapshot, generation: UInt64)>
    /// The last text body's size, to reserve the next one's buffers at once.
    private let lastTextSize = Atomic<Int>(0)
    private let publishedHealth: Mutex<CollectorHealth>
    /// This collector's right to record under its key prefix (``claimEnergy()``).
    private let lease: Mutex<EnergyMeter<C>.Lease>
    /// When the last successful readout was taken, on the monotonic clock (a leaf lock).
    private let lastSuccessInstant = Mutex<C.Instant?>(nil)
    /// Every device as last read (a leaf lock).
    private let publishedDevices = Mutex(DeviceReadings.empty)
    /// Called after each collection has published everything it read (snapshot, devices,
    /// health), and after each republish of a hung one (``recordSkippedCollections(total:)``).
    private let onPublish: @Sendable () -> Void

    /// Creates a collector and renders its first snapshot (no devices, `winpower_exporter_up 0`).
    ///
    /// - Parameters:
    ///   - configuration: interval, staleness window and target.
    ///   - client: where devices are read from.
    ///   - meter: integrates and persists energy; already loaded from its store.
    ///   - clock: the monotonic clock for durations and staleness (tests inject a manual clock).
    ///   - wallClock: the wall clock for timestamps.
    ///   - logger: where cycle failures and recoveries are logged.
    ///   - published: called once each collection (or a republish of a hung one) has published
    ///     all it read, on the collecting task: whoever calls ``collect()`` publishes, so
    ///     nothing downstream depends on who drives collections (a scheduler or a test).
    public init(configuration: CollectorConfiguration, client: any WinPowerClient, meter: EnergyMeter<C>,
                clock: C, wallClock: WallClock, logger: WPLogger,
                published: @escaping @Sendable () -> Void = {}) {
        self.onPublish = published
        self.configuration = configuration
        self.client = client
        self.meter = meter
        self.clock = clock
        self.wallClock = wallClock
        self.logger = logger
        self.state = Mutex(CollectorState(configuration: configuration))
        self.published = Mutex((.empty, 0))
        self.publishedHealth = Mutex(CollectorHealth())
        self.lease = Mutex(meter.lease(keyPrefix: configuration.energyKeyPrefix))
        let energy = EnergyView(meter, prefix: configuration.energyKeyPrefix)
        let initial = state.withLock { state in
            render(&state, energy, at: clock.now, wall: wallClock.now, generatedAt: nil)
        }
        publish(encodedHere(initial))
    }

    /// Makes this collector the only one recording energy under its key prefix, from now on:
    /// a collector made earlier for the same server (replaced by a reload), whose collection is
    /// still in flight, records nothing more. Creating a collector claims it too; a pipeline
    /// started after its predecessor stopped claims it again at its start.
    public func claimEnergy() {
        let lease = meter.lease(keyPrefix: configuration.energyKeyPrefix)
        self.lease.withLock { $0 = lease }
    }

    /// The latest published snapshot; cheap (a reference copy under a mutex).
    public var snapshot: MetricsSnapshot { published.withLock { $0.snapshot } }

    /// What the last collections found.
    public var health: CollectorHealth { publishedHealth.withLock { $0 } }

    /// Every device as last read, with when: what a bridge (the NUT server) serves. A new
    /// value after each successful collection (compare with `===` to see a change); a device
    /// missing from a readout stays until its reading is older than the staleness window.
    /// Cheap: a reference copy under a mutex held for nothing else.
    public var devices: DeviceReadings { publishedDevices.withLock { $0 } }

    /// How old a reading taken at `instant` is now, on the collector's clock.
    public func age(of instant: C.Instant) -> Duration { instant.duration(to: clock.now) }

    /// Time since the last successful readout was taken, on the collector's monotonic clock
    /// (the one readings go stale on); `nil` before the first success. Stepping the wall clock
    /// changes nothing here: `/health` judges freshness with it, and shows wall time only as
    /// timestamps.
    public func timeSinceLastSuccess() -> Duration? {
        lastSuccess.map { $0.duration(to: clock.now) }
    }

    /// When the last successful readout was taken, on the collector's monotonic clock; `nil`
    /// before the first success.
    public var lastSuccess: C.Instant? { lastSuccessInstant.withLock { $0 } }

    /// Records the scheduler's count of skipped collections, exported as
    /// `winpower_exporter_collections_skipped_total`, and publishes a new snapshot at once when
    /// the count grew.
    ///
    /// A collection only publishes when it ends, and one that hangs (WinPower accepts the
    /// connection but does not answer) ends only at `winpower.timeout`, which may be longer than
    /// the staleness window. The scheduler reports every tick it skips, so while a collection
    /// hangs the counter still moves and readings older than the window are still withdrawn
    /// (with `winpower_exporter_up` going to 0), within one interval.
    ///
    /// - Parameter total: the total skipped since start (not an increment); a value not above
    ///   the one already recorded changes nothing, so the counter never decreases.
    /// - Returns: whether a new snapshot was published.
    @discardableResult
    public func recordSkippedCollections(total: Int) -> Bool {
        let now = clock.now
        // Read before taking `state`: the meter may be saving (a slow disk), and nothing that
        // holds `state` may wait for it.
        let energy = EnergyView(meter, prefix: configuration.energyKeyPrefix)
        let next = state.withLock { state -> Rendering? in
            guard total > state.skippedCollections else { return nil }
            state.skippedCollections = total
            return render(&state, energy, at: now, wall: wallClock.now, generatedAt: state.health.lastFinished)
        }
        guard let next else { return false }
        guard publish(encodedHere(next)) else { return false }
        onPublish()
        return true
    }

    /// Runs one cycle: fetch → integrate → persist → render → publish, then calls `published`
    /// (given at creation). Never throws.
    ///
    /// Errors are counted in `winpower_exporter_scrape_errors_total{error_type}` and reported in
    /// ``health``; the snapshot published after a failure keeps energy counters and withdraws
    /// stale gauges.
    public func collect() async {
        let start = clock.now
        let attemptWall = wallClock.now
        let started = state.withLock { state in
            state.begin(at: attemptWall)
            return state.health
        }
        publishedHealth.withLock { $0 = started }
        let rawOutcome: Result<DeviceReadout, ClientError>
        do {
            rawOutcome = .success(try await client.fetchDevices())
        } catch let error as ClientError {
            rawOutcome = .failure(error)
        } catch is CancellationError {
            rawOutcome = .failure(ClientError(.timeout, "collection cancelled before WinPower answered"))
        } catch {
            rawOutcome = .failure(ClientError(.network, "unexpected \(type(of: error)) from the WinPower client"))
        }
        let fetched = clock.now
        let filter = configuration.devices
        // Battery readings outside their physical bounds are missing from here on (BatteryBounds).
        var refused: [BatteryBounds.Refusal] = []
        let outcome = rawOutcome.map { readout in
            var kept = filter.apply(to: readout)
            refused = BatteryBounds.apply(to: &kept.devices)
            return kept
        }
        var recorded: EnergyMeter<C>.CycleReport?
        if case .success(let readout) = outcome {
            let prefix = configuration.energyKeyPrefix
            recorded = meter.record(readout.devices.map { Self.energySample($0, keyPrefix: prefix) }, at: fetched,
                                    wall: wallClock.now, lease: lease.withLock { $0 })
        }
        let finished = clock.now
        // Published once on disk: the served counters are the saved ones (servedTotals), so
        // waiting for the save serves this collection's totals. The wait is bounded: a stuck
        // disk holds the served counters at their last saved values, never the collection.
        if let recorded { await meter.saved(recorded, timeout: configuration.saveWait) }
        let wall = wallClock.now
        let energy = EnergyView(meter, prefix: configuration.energyKeyPrefix)
        // Logged after the lock is released: a blocked log output must not hold `state`.
        var (next, health, previouslySucceeded, neverSucceeded) = state.withLock { state in
            state.collectionDuration.observe(start.duration(to: finished).inSeconds)
            state.end(at: wall)
            let previouslySucceeded = state.lastCollectionSucceeded
            let neverSucceeded = state.lastSuccessAt == nil
            switch outcome {
            case .success(let readout):
                for refusal in refused { state.readingsRefused[refusal.reading, default: 0] += 1 }
                // Logged below, once per device and reading: a UPS sending garbage every cycle
                // is one warning, the counter says how often.
                refused = refused.filter { state.refusalsLogged.insert("\($0.deviceID)\u{1F}\($0.reading.rawValue)").inserted }
                state.apply(readout, at: fetched, wall: wall, readings: configuration.readings, devices: filter)
            case .failure(let error):
                state.apply(failure: error.kind.rawValue, message: error.message,
                            reachable: Self.reachedServer(error), wall: wall)
            }
            let rendered = render(&state, energy, at: finished, wall: wall, generatedAt: wall)
            return (rendered, state.health, previouslySucceeded, neverSucceeded)
        }
        for refusal in refused {
            logger.warn("implausible battery reading refused: treated as missing, it sets no low battery (logged once per device)",
                        ["device_id": .string(refusal.deviceID), "reading": .string(refusal.reading.rawValue),
                         "value": .string("\(refusal.value)"),
                         "bounds": .string("\(BatteryBounds.bounds(refusal.reading))")])
        }
        switch outcome {
        case .success(let readout) where neverSucceeded:
            // Says once that the whole path works (login, device list, metrics), after `logged in`.
            logger.info("first collection", ["devices": .int(readout.devices.count), "target": "\(configuration.target)"])
        case .success(let readout) where previouslySucceeded == false:
            logger.info("collection works again", ["devices": .int(readout.devices.count)])
        case .failure(let error) where previouslySucceeded != false:
            // Served until older than the staleness window: /metrics keeps the gauges, the NUT
            // bridge answers reads (a UPS is stale by the age of its data, as upsd's MAXAGE).
            logger.warn("collection failed; serving the last readings until they go stale",
                        ["error_type": "\(error.kind.rawValue)", "error": "\(error.message)",
                         "target": "\(configuration.target)"])
        default:
            break
        }
        publish(await encodedConcurrently(next))
        if case .success(let readout) = outcome {
            lastSuccessInstant.withLock { $0 = fetched }
            let previous = publishedDevices.withLock { $0 }
            let readings = DeviceReadings(merging: readout.devices, at: fetched, into: previous,
                                          window: configuration.stalenessWindow,
                                          selfTests: energy.totals.compactMapValues { SelfTestRecord($0.ledger) },
                                          outageStarts: energy.totals.compactMapValues { $0.ledger.inOutage ? $0.ledger.lastStart : nil },
                                          transfers: energy.totals.mapValues { $0.ledger.transfers })
            publishedDevices.withLock { $0 = readings }
        }
        health.energySamplesRejected = energy.status.rejectedSamples
        health.outages = energy.totals.compactMap { id, totals in
            totals.ledger.inOutage ? CollectorHealth.DeviceOutage(deviceID: id, since: totals.ledger.lastStart) : nil
        }.sorted { $0.deviceID < $1.deviceID }
        publishedHealth.withLock { $0 = health }
        onPublish()
    }

    /// Families of the shared energy meter's health: the same for every server, so a
    /// multi-server exporter serves them once, without server labels.
    public static var processWideFamilies: Set<String> {
        ["winpower_exporter_energy_state_reset", "winpower_exporter_energy_persist_failures_total",
         "winpower_exporter_energy_last_save_successful"]
    }

    /// The chunks of ``processWideFamilies`` for a merged exposition: the shared meter's
    /// health, without server labels; `nil` only if rendering failed.
    ///
    /// - Parameter meter: the meter every server's collector shares.
    package static func processWideChunks(_ meter: EnergyMeter<C>) -> ExpositionChunks? {
        let status = meter.status
        guard let families = try? MetricFamily.meterFamilies(stateReset: status.stateWasReset,
                                                             persistFailures: status.persistFailures,
                                                             lastSaveFailed: status.lastPersistError != nil) else { return nil }
        return ExpositionChunks(families: families, labels: [], deviceCount: 0, generatedAt: nil)
    }

    /// The energy sample of a device: total active power, unusable while disconnected, bounded
    /// by the device's rating, with the mode, runtime and test status the outage ledger needs;
    /// keyed `keyPrefix + id` in the meter.
    static func energySample(_ device: Device, keyPrefix: String = "") -> EnergySample {
        EnergySample(deviceID: keyPrefix.isEmpty ? device.id : keyPrefix + device.id, watts: device.realtime.loadTotalWatt,
                     connected: device.connected != false, ratingVa: device.config.ratingVa, mode: device.realtime.mode,
                     runtimeSeconds: device.realtime.batRemainTime, testStatus: device.realtime.testStatus)
    }

    /// Whether a failure of this kind means WinPower answered over HTTP.
    static func reachedServer(_ error: ClientError) -> Bool {
        switch error.kind {
        case .network, .timeout, .tls: return false
        case .auth, .httpStatus, .apiCode, .decode: return true
        }
    }

    /// What ``render(_:_:at:wall:generatedAt:)`` made under the state lock: a snapshot, or
    /// families still to encode (outside the lock), and the rendering's generation.
    private struct Rendering {
        enum Content {
            case snapshot(MetricsSnapshot)
            case families([MetricFamily], generatedAt: Date?, deviceCount: Int, seriesCount: Int)
        }

        var content: Result<Content, any Error>
        var generation: UInt64
    }

    /// A rendered snapshot and its generation.
    private typealias Encoded = (snapshot: Result<MetricsSnapshot, any Error>, generation: UInt64)

    /// Swaps in a rendered snapshot unless a newer one is already published, or logs why
    /// rendering failed (the previous one stays). Called with no lock held.
    @discardableResult
    private func publish(_ encoded: Encoded) -> Bool {
        switch encoded.snapshot {
        case .success(let snapshot):
            return published.withLock { published in
                guard encoded.generation > published.generation else { return false }
                published = (snapshot, encoded.generation)
                return true
            }
        case .failure(let error):
            logger.error("rendering metrics failed; serving the previous snapshot", ["error": "\(error)"])
            return false
        }
    }

    /// Builds the families of `state` as of `now` (under the state lock; nothing is encoded
    /// here). A collector of one server of several renders its chunks at once.
    private func render(_ state: inout CollectorState<C.Instant>, _ energy: EnergyView, at now: C.Instant, wall: Date,
                        generatedAt: Date?) -> Rendering {
        let (live, extras) = state.liveDevices(at: now, window: configuration.stalenessWindow)
        let context = RenderContext(live: live, extras: extras, totals: energy.totals, energyStateReset: energy.status.stateWasReset,
                                    persistFailures: energy.status.persistFailures,
                                    lastSaveFailed: energy.status.lastPersistError != nil,
                                    rejectedSamples: energy.rejectedSamples, now: wall,
                                    fresh: state.isFresh(at: now, window: configuration.stalenessWindow))
        state.renderings += 1
        let content = Result { () throws -> Rendering.Content in
            let families = try state.families(context)
            let seriesCount = families.reduce(0) { $0 + $1.lineCount }
            guard configuration.seriesLabels.isEmpty else {
                // One server of several: its chunks only (the merge and /probe are made from them).
                let chunks = ExpositionChunks(families: families, labels: configuration.seriesLabels,
                                              excluding: Self.processWideFamilies, deviceCount: live.count,
                                              generatedAt: generatedAt)
                return .snapshot(MetricsSnapshot(text: [], textGzip: [], openMetrics: [], openMetricsGzip: [],
                                                 generatedAt: generatedAt, deviceCount: live.count,
                                                 seriesCount: seriesCount, chunks: chunks))
            }
            return .families(families, generatedAt: generatedAt, deviceCount: live.count, seriesCount: seriesCount)
        }
        return Rendering(content: content, generation: state.renderings)
    }

    /// Encodes and gzips a rendering on this thread (creation and skipped ticks: rare).
    private func encodedHere(_ rendering: Rendering) -> Encoded {
        (rendering.content.map { content in
            switch content {
            case .snapshot(let snapshot): return snapshot
            case .families(let families, let generatedAt, let deviceCount, let seriesCount):
                return snapshot(SnapshotEncoder.encode(families, textCapacity: lastTextSize.load(ordering: .relaxed)),
                                generatedAt: generatedAt, deviceCount: deviceCount, seriesCount: seriesCount)
            }
        }, rendering.generation)
    }

    /// Encodes a rendering and gzips both bodies at once, in two child tasks (a collection).
    private func encodedConcurrently(_ rendering: Rendering) async -> Encoded {
        switch rendering.content {
        case .success(.families(let families, let generatedAt, let deviceCount, let seriesCount)):
            let bodies = await SnapshotEncoder.encodeConcurrently(families, textCapacity: lastTextSize.load(ordering: .relaxed))
            return (.success(snapshot(bodies, generatedAt: generatedAt, deviceCount: deviceCount, seriesCount: seriesCount)),
                    rendering.generation)
        default:
            return encodedHere(rendering)
        }
    }

    private func snapshot(_ bodies: SnapshotEncoder.Bodies, generatedAt: Date?, deviceCount: Int, seriesCount: Int) -> MetricsSnapshot {
        lastTextSize.store(bodies.text.count, ordering: .relaxed)
        return MetricsSnapshot(text: bodies.text, textGzip: bodies.textGzip, openMetrics: bodies.openMetrics,
                               openMetricsGzip: bodies.openMetricsGzip, generatedAt: generatedAt,
                               deviceCount: deviceCount, seriesCount: seriesCount)
    }

    /// The meter's totals and status, read before the collector's state lock is taken.
    private struct EnergyView {
        var totals: [String: DeviceEnergy]
        var status: EnergyMeter<C>.Status
        var rejectedSamples: [String: Int]

        /// - Parameter prefix: the collector's key prefix: only keys with it are kept,
        ///   without it (every key when empty).
        init(_ meter: EnergyMeter<C>, prefix: String) {
            totals = meter.servedTotals(keyPrefix: prefix)
            status = meter.status
            rejectedSamples = EnergyKey.owned(meter.rejectedSamples, prefix: prefix) { $0 }
        }
    }
}

extension WinPowerCollector {
    /// The devices of the latest readouts, sorted by `device_id`, each with the instant it was
    /// last read on the collector's clock. Immutable: a collection publishes a new one.
    public final class DeviceReadings: Sendable {
        /// One device as last read.
        public struct Reading: Sendable {
            /// The device as last read, with its configured name (if any) as its alias.
            public let device: Device
            /// When it was read, on the collector's monotonic clock (``WinPowerCollector/age(of:)``).
            public let readAt: C.Instant

            /// `device` as read at `readAt` (a test's publication builds its own).
            package init(device: Device, readAt: C.Instant) {
                self.device = device
                self.readAt = readAt
            }
        }

        /// The devices, sorted by `device_id`.
        public let readings: [Reading]
        /// The battery self-tests the outage ledger keeps, by `device_id`, for devices that
        /// had one (kept across restarts with the energy totals).
        public let selfTests: [String: SelfTestRecord]
        /// When the outage in progress began (wall clock), by `device_id`, for devices the outage
        /// ledger has on battery now (kept across restarts): `upsSecondsOnBattery`.
        public let outageStarts: [String: Date]
        /// The transfers to battery the outage ledger counted, by `device_id` (kept across
        /// restarts): `upsInputLineBads`.
        public let transfers: [String: Int]

        static var empty: DeviceReadings { DeviceReadings([], selfTests: [:], outageStarts: [:]) }

        /// `readings` (sorted by `device_id`, as a collection makes them) with the outage ledger's
        /// records of them (a test's publication builds its own).
        package init(_ readings: [Reading], selfTests: [String: SelfTestRecord] = [:], outageStarts: [String: Date] = [:],
                     transfers: [String: Int] = [:]) {
            self.readings = readings
            self.selfTests = selfTests
            self.outageStarts = outageStarts
            self.transfers = transfers
        }

        /// `devices` read at `instant`, plus the devices of `previous` missing from them whose
        /// reading is still within `window`.
        convenience init(merging devices: [Device], at instant: C.Instant, into previous: DeviceReadings, window: Duration,
                         selfTests: [String: SelfTestRecord], outageStarts: [String: Date], transfers: [String: Int] = [:]) {
            var byID: [String: Reading] = [:]
            for reading in previous.readings where reading.readAt.duration(to: instant) <= window {
                byID[reading.device.id] = reading
            }
            for device in devices { byID[device.id] = Reading(device: device, readAt: instant) }
            self.init(byID.values.sorted { $0.device.id < $1.device.id }, selfTests: selfTests, outageStarts: outageStarts,
                      transfers: transfers)
        }
    }
}
