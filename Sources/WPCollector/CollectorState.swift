import FoundationEssentials
import WPClient
import WPEnergy

/// Everything the collector remembers between cycles; guarded by the collector's mutex.
struct CollectorState<Instant: InstantProtocol>: Sendable where Instant.Duration == Duration {
    /// The last successful reading of one device.
    struct Entry: Sendable {
        var series: LiveDevice
        /// Its phases, passed-through readings and alarm texts, when it has any.
        var extras: LiveDevice.Extras?
        /// When the reading arrived (monotonic), for staleness.
        var sampledAt: Instant
    }

    /// Devices from successful readouts, kept until their reading is older than the window.
    var entries: [String: Entry] = [:]
    /// Labels of every device seen since start: energy series outlive the readings.
    var energyLabels: [String: [String]] = [:]
    /// Last-update timestamps of every device seen since start.
    var lastUpdate: [String: Date] = [:]
    /// Failed collections by error kind.
    var errors: [String: Int] = Dictionary(uniqueKeysWithValues: ClientError.Kind.allCases.map { ($0.rawValue, 0) })
    var collectionDuration: HistogramAccumulator
    var apiResponseTime: [String: HistogramAccumulator]
    var skippedCollections = 0
    var health = CollectorHealth()
    /// Result of the last collection; `nil` before the first.
    var lastCollectionSucceeded: Bool?
    /// When the last successful readout arrived (monotonic).
    var lastSuccessAt: Instant?
    /// The token expiry reported by the last successful readout.
    var tokenExpiry: Date?
    /// Byte size of the last rendered text body: the capacity hint for the next render.
    /// Renderings made so far: each snapshot's generation (a newer one is never replaced).
    var renderings: UInt64 = 0
    /// Collections running now (more than one only if callers overlap them).
    var running = 0
    /// The label names of every per-device series: `device_id`, `device_name`, `device_type`,
    /// then the static device labels (``DeviceFilter/labelNames``).
    var deviceLabelNames = ["device_id", "device_name", "device_type"]
    /// Readings left out of `winpower_device_reading` since start, by reason.
    var readingsDropped: [ReadingsPolicy.DropReason: Int] = [:]
    /// Battery readings refused as outside their physical bounds since start (``BatteryBounds``).
    var readingsRefused: [BatteryBounds.Reading: Int] = [:]
    /// The device and reading of each refusal already logged (once per pair).
    var refusalsLogged: Set<String> = []

    init(configuration: CollectorConfiguration) {
        collectionDuration = HistogramAccumulator(bounds: configuration.collectionDurationBuckets)
        let api = HistogramAccumulator(bounds: configuration.apiResponseTimeBuckets)
        apiResponseTime = Dictionary(uniqueKeysWithValues: APICall.Endpoint.allCases.map { ($0.rawValue, api) })
        deviceLabelNames += configuration.devices.labelNames
    }

    /// Records that a collection started at `wall`.
    mutating func begin(at wall: Date) {
        running += 1
        health.lastAttempt = wall
        health.inProgress = true
    }

    /// Records that a collection finished at `wall` (before its result is applied).
    mutating func end(at wall: Date) {
        running = max(0, running - 1)
        health.inProgress = running > 0
        health.lastFinished = wall
    }

    /// Applies a successful readout received at `instant` / `wall`, passing unknown readings
    /// through under `readings`.
    mutating func apply(_ readout: DeviceReadout, at instant: Instant, wall: Date, readings: ReadingsPolicy = ReadingsPolicy(),
                        devices filter: DeviceFilter = .all) {
        let extra = readings.apply(to: readout.devices)
        for (reason, count) in extra.dropped { readingsDropped[reason, default: 0] += count }
        for (bound, count) in readout.devicesDropped where count > 0 {
            health.devicesDropped[bound.rawValue, default: 0] += count
        }
        if !readout.dropped.isEmpty { health.devicesDropped[Self.invalidDevice, default: 0] += readout.dropped.count }
        health.textsTruncated += readout.textsTruncated
        health.deviceListIncomplete = readout.isComplete ? nil
            : readout.incompleteReason.isEmpty ? "incomplete" : readout.incompleteReason
        for device in readout.devices {
            let series = LiveDevice(device, staticLabels: filter.labelValues(device.id))
            entries[device.id] = Entry(series: series, extras: .of(device, readings: extra.kept[device.id] ?? []), sampledAt: instant)
            energyLabels[device.id] = series.labels
            lastUpdate[device.id] = wall
        }
        for call in readout.calls {
            apiResponseTime[call.endpoint.rawValue, default: HistogramAccumulator(bounds: [])].observe(call.seconds)
        }
        tokenExpiry = readout.tokenExpiry
        lastSuccessAt = instant
        health.lastSuccess = wall
        health.lastError = nil
        health.winPowerReachable = true
        health.authenticated = readout.tokenExpiry.map { $0 > wall } ?? true
        lastCollectionSucceeded = true
    }

    /// The `reason` of `winpower_exporter_devices_dropped_total` for device objects without a usable id.
    static var invalidDevice: String { "invalid" }

    /// Applies a failed collection of error kind `kind`.
    mutating func apply(failure kind: String, message: String, reachable: Bool, wall: Date) {
        errors[kind, default: 0] += 1
        health.lastError = "\(kind): \(message)"
        health.winPowerReachable = reachable
        if kind == ClientError.Kind.auth.rawValue {
            tokenExpiry = nil
            health.authenticated = false
        } else {
            health.authenticated = tokenExpiry.map { $0 > wall } ?? false
        }
        lastCollectionSucceeded = false
    }

    /// Whether the last success arrived within `window` before `now`.
    func isFresh(at now: Instant, window: Duration) -> Bool {
        lastSuccessAt.map { $0.duration(to: now) <= window } ?? false
    }

    /// Drops entries whose reading is older than `window` at `now`; returns the live ones sorted by id.
    mutating func liveDevices(at now: Instant, window: Duration) -> (live: [LiveDevice], extras: [RenderContext.Extras]) {
        let stale = entries.compactMap { $0.value.sampledAt.duration(to: now) > window ? $0.key : nil }
        for id in stale { entries[id] = nil }
        health.deviceCount = entries.count
        var live: [LiveDevice] = []
        var extras: [RenderContext.Extras] = []
        live.reserveCapacity(entries.count)
        for id in entries.keys.sorted() {
            guard let entry = entries[id] else { continue }
            live.append(entry.series)
            if let more = entry.extras { extras.append(RenderContext.Extras(labels: entry.series.labels, extras: more)) }
        }
        health.alarms = extras.compactMap { entry in
            entry.extras.alarms.isEmpty ? nil
                : CollectorHealth.DeviceAlarms(deviceID: entry.labels[0], deviceName: entry.labels[1], alarms: entry.extras.alarms)
        }
        return (live, extras)
    }
}
