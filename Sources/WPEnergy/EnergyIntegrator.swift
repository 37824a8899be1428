public import FoundationEssentials
public import WPStorage
import WPRuntime

/// Per-device trapezoidal integration of active power over a monotonic time line.
///
/// A pure value type: feed it each cycle's samples with the monotonic instant they were taken,
/// read the totals. Between two consecutive valid samples of a device the energy added is
/// `(p₀ + p₁) / 2 · Δt`. The chain of valid samples is broken by a sample whose power is
/// absent, non-finite or negative, or whose device is disconnected: it adds nothing, and the
/// next valid sample starts a new chain. A device missing from a cycle keeps its chain, so a
/// dropped sample is bridged — unless the interval exceeds ``EnergyConfiguration/maxGap``, in
/// which case it is skipped and counted as a gap. A reading above the sample's plausibility
/// bound (``EnergyConfiguration/maxWatts(ratingVa:)``) is a glitch: it is counted as rejected and treated as a
/// dropped sample (the chain is bridged over it). Totals never decrease: every added term is
/// a non-negative power times a positive monotonic duration.
///
/// Each device also keeps its outage ledger (``OutageLedger``), updated from the
/// same samples by the rules of `OutageTrack`, and persisted with the totals.
///
/// ```swift
/// var integrator = EnergyIntegrator<ContinuousClock.Instant>(configuration: .init())
/// integrator.integrate([EnergySample(deviceID: "ups-1", watts: 400)], at: clock.now)
/// let wh = integrator.totals["ups-1"]?.wattHours
/// ```
public struct EnergyIntegrator<Instant: InstantProtocol>: Sendable where Instant.Duration == Duration {
    /// What one call to `integrate(_:at:)` did, for logging.
    public struct Summary: Sendable, Equatable {
        /// Samples that extended a chain (added energy, possibly zero).
        public var integrated = 0
        /// Samples that were unusable and broke their device's chain.
        public var unusable = 0
        /// Devices whose interval since their previous valid sample exceeded the max gap.
        public var gapDevices: [String] = []
        /// The longest skipped interval in this call.
        public var longestGap: Duration = .zero
        /// Samples above their plausibility bound in this call, not integrated.
        public var implausible: [Rejection] = []
        /// Samples ignored because their instant was not after their device's previous one (a
        /// late or repeated reading): neither energy nor the outage ledger sees them.
        public var outOfOrder = 0
    }

    /// A reading refused as implausible.
    public struct Rejection: Sendable, Equatable {
        /// The device the reading came from.
        public var deviceID: String
        /// The active power it reported, in watts.
        public var watts: Double
        /// The bound it exceeded.
        public var maxWatts: Double
    }

    private struct Track: Sendable {
        var energy = DeviceEnergy()
        var last: (instant: Instant, watts: Double)?
        var outage = OutageTrack<Instant>()
        /// The instant of the latest sample applied, usable or not: a sample not after it is
        /// ignored, so a late reading can never restart the chain in the past.
        var seen: Instant?
    }

    /// The gap and plausibility settings every later sample is integrated with.
    public var configuration: EnergyConfiguration
    private var tracks: [String: Track] = [:]
    /// Readings above their plausibility bound per device since start (not persisted).
    public private(set) var rejectedSamples: [String: Int] = [:]

    /// Creates an integrator, seeding device totals from a loaded state.
    ///
    /// - Parameters:
    ///   - configuration: the max gap.
    ///   - seed: totals to continue from (a device absent from it starts at 0).
    public init(configuration: EnergyConfiguration, seed: EnergyState = EnergyState()) {
        self.configuration = configuration
        tracks.reserveCapacity(seed.devices.count)
        for (id, stored) in seed.devices {
            let energy = DeviceEnergy(stored)
            tracks[id] = Track(energy: energy, outage: OutageTrack(ledger: energy.ledger))
        }
    }

    /// Integrates one cycle's samples taken at `instant` (a monotonic clock's reading).
    ///
    /// - Parameters:
    ///   - samples: one sample per device (devices may be missing; of a duplicate id only the
    ///     first is applied).
    ///   - instant: when the samples were taken. A sample whose instant is not after its
    ///     device's previous one (a late or repeated reading) is ignored and counted in
    ///     ``Summary/outOfOrder``: the chain continues from the latest reading, never from the past.
    ///   - wall: the wall-clock time of the samples, for the outage ledger's timestamps only
    ///     (`nil`: none recorded); nothing is integrated from it.
    /// - Returns: counts for logging.
    @discardableResult
    public mutating func integrate(_ samples: [EnergySample], at instant: Instant, wall: Date? = nil) -> Summary {
        var summary = Summary()
        for sample in samples {
            if let seen = tracks[sample.deviceID]?.seen, instant <= seen {
                summary.outOfOrder += 1
                continue
            }
            let bound = configuration.maxWatts(ratingVa: sample.ratingVa)
            var implausible = false
            if let watts = sample.usableWatts, watts > bound {
                // A glitch: as if the sample had been dropped, so the chain bridges it.
                implausible = true
                rejectedSamples[sample.deviceID, default: 0] += 1
                summary.implausible.append(Rejection(deviceID: sample.deviceID, watts: watts, maxWatts: bound))
            }
            Self.apply(sample, implausible: implausible, at: instant, wall: wall, maxGap: configuration.maxGap,
                       summary: &summary, to: &tracks[sample.deviceID, default: Track()])
        }
        return summary
    }

    /// Applies one sample to its device's track (one dictionary access per sample): the outage
    /// ledger first (it needs the mode of every reading, implausible power included), then the
    /// energy. Energy added over an interval on battery at both ends is discharge, and an
    /// on-battery gap the energy chain did not already count (power was unusable) is counted as
    /// a gap too.
    private static func apply(_ sample: EnergySample, implausible: Bool, at instant: Instant, wall: Date?,
                              maxGap: Duration, summary: inout Summary, to track: inout Track) {
        track.seen = instant
        let before = track.energy
        let step = track.outage.observe(mode: sample.usableMode, watts: implausible ? nil : sample.usableWatts,
                                        runtime: sample.runtimeSeconds, testStatus: sample.testStatus,
                                        at: instant, wall: wall, maxGap: maxGap)
        if !implausible { integrateEnergy(sample, at: instant, maxGap: maxGap, summary: &summary, to: &track) }
        if step.bridged { track.outage.addDischarge(track.energy.joules - before.joules) }
        if step.gap, track.energy.gaps == before.gaps {
            track.energy.gaps = StoredDeviceEnergy.incremented(track.energy.gaps)
            summary.gapDevices.append(sample.deviceID)
        }
        track.energy.ledger = track.outage.ledger
    }

    /// The trapezoid step of one usable sample, or the end of the chain for an unusable one.
    private static func integrateEnergy(_ sample: EnergySample, at instant: Instant, maxGap: Duration,
                                        summary: inout Summary, to track: inout Track) {
        guard let watts = sample.usableWatts else {
            track.last = nil
            summary.unusable += 1
            return
        }
        if let last = track.last {
            let elapsed = last.instant.duration(to: instant)
            if elapsed > maxGap {
                track.energy.gaps = StoredDeviceEnergy.incremented(track.energy.gaps)
                summary.gapDevices.append(sample.deviceID)
                summary.longestGap = max(summary.longestGap, elapsed)
            } else if elapsed > .zero {
                let total = track.energy.joules + (last.watts + watts) / 2 * elapsed.inSeconds
                // An absurd but finite reading could overflow; such a total could not be
                // stored, so the sample is treated as unusable instead.
                guard total.isFinite else {
                    track.last = nil
                    summary.unusable += 1
                    return
                }
                track.energy.joules = total
            }
        }
        track.last = (instant, watts)
        summary.integrated += 1
    }

    /// Moves whole tracks to new keys: totals, gaps, outage ledger, the chain in progress (so
    /// the next sample under the new key continues it) and the rejected-sample count. A move
    /// whose new key is already known is skipped, so nothing is overwritten nor dropped.
    ///
    /// - Parameter moves: old key → new key.
    /// - Returns: the old keys moved and those skipped, each sorted.
    public mutating func rekey(_ moves: [String: String]) -> (moved: [String], skipped: [String]) {
        var (moved, skipped): ([String], [String]) = ([], [])
        for (old, new) in moves.sorted(by: { $0.key < $1.key }) where old != new {
            guard let track = tracks[old] else { continue }
            guard tracks[new] == nil else {
                skipped.append(old)
                continue
            }
            tracks[new] = track
            tracks[old] = nil
            if let rejected = rejectedSamples.removeValue(forKey: old) { rejectedSamples[new, default: 0] += rejected }
            moved.append(old)
        }
        return (moved, skipped)
    }

    /// The totals of every device known (seeded or seen).
    public var totals: [String: DeviceEnergy] { tracks.mapValues(\.energy) }

    /// The totals of the devices whose key starts with `prefix`, keyed without it (every device
    /// when it is empty): one server's devices of a meter shared by many, without copying the
    /// others' totals.
    public func totals(keyPrefix prefix: String) -> [String: DeviceEnergy] {
        EnergyKey.owned(tracks, prefix: prefix, \.energy)
    }

    /// The totals of one device, or `nil` when it was never seen nor seeded.
    public func total(for deviceID: String) -> DeviceEnergy? { tracks[deviceID]?.energy }

    /// The number of devices known.
    public var deviceCount: Int { tracks.count }

    /// The devices' totals as a state to persist (bookkeeping fields copied from `base`).
    public func state(base: EnergyState = EnergyState()) -> EnergyState {
        var state = base
        state.devices = tracks.mapValues {
            StoredDeviceEnergy(joules: $0.energy.joules, gaps: $0.energy.gaps, ledger: StoredOutageLedger($0.outage.ledger))
        }
        return state
    }
}
