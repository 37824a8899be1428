import Foundation
import WPClient
import WPEnergy

/// Everything the collector remembers between cycles; guarded by the collector's mutex.
struct CollectorState<Instant: InstantProtocol>: Sendable where Instant.Duration == Duration {
    /// The last successful reading of one device.
    struct Entry: Sendable {
        var device: Device
        /// `[device_id, device_name, device_type]`, shared by every series of the device.
        var labels: [String]
        /// When the reading arrived (monotonic), for staleness.
        var sampledAt: Instant
        /// When the reading arrived (wall clock), exported as the last-update timestamp.
        var sampledWall: Date
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
    /// When the last collection finished (wall clock).
    var lastCollectionFinished: Date?
    /// The token expiry reported by the last successful readout.
    var tokenExpiry: Date?
    /// Byte sizes of the last rendered bodies: capacity hints for the next render.
    var lastTextSize = 0
    var lastOpenMetricsSize = 0

    init(configuration: CollectorConfiguration) {
        collectionDuration = HistogramAccumulator(bounds: configuration.collectionDurationBuckets)
        let api = HistogramAccumulator(bounds: configuration.apiResponseTimeBuckets)
        apiResponseTime = Dictionary(uniqueKeysWithValues: APICall.Endpoint.allCases.map { ($0.rawValue, api) })
    }

    /// The device labels: id, alias (empty when unnamed) and the numeric type (empty when absent).
    static func labels(of device: Device) -> [String] {
        [device.id, device.asset.alias ?? "", device.asset.deviceType.map(String.init) ?? ""]
    }

    /// Applies a successful readout received at `instant` / `wall`.
    mutating func apply(_ readout: DeviceReadout, at instant: Instant, wall: Date) {
        for device in readout.devices {
            let labels = Self.labels(of: device)
            entries[device.id] = Entry(device: device, labels: labels, sampledAt: instant, sampledWall: wall)
            energyLabels[device.id] = labels
            lastUpdate[device.id] = wall
        }
        for call in readout.calls {
            apiResponseTime[call.endpoint.rawValue, default: HistogramAccumulator(bounds: [])].observe(call.seconds)
        }
        tokenExpiry = readout.tokenExpiry
        health.lastSuccess = wall
        health.lastError = nil
        health.winPowerReachable = true
        health.authenticated = readout.tokenExpiry.map { $0 > wall } ?? true
        lastCollectionSucceeded = true
    }

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

    /// Drops entries whose reading is older than `window` at `now`; returns the live ones sorted by id.
    mutating func liveDevices(at now: Instant, window: Duration) -> [LiveDevice] {
        entries = entries.filter { $0.value.sampledAt.duration(to: now) <= window }
        health.deviceCount = entries.count
        return entries.values.sorted { $0.device.id < $1.device.id }
            .map { LiveDevice(device: $0.device, labels: $0.labels) }
    }
}
