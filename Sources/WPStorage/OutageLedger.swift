import FoundationEssentials

/// The persisted outage ledger of one device: how often mains failed, how long the battery
/// carried the load, how long outages lasted, and the device's battery self-tests.
///
/// Kept next to the energy totals in ``StoredDeviceEnergy`` (same file, same atomic write, same
/// recovery). The rules that fill it live in `WPEnergy` (`OutageTrack`); this type only holds
/// and validates the values. Counters only grow; a ledger whose every field is at its default
/// is ``isEmpty`` and is not written to the state file at all.
public struct OutageLedger: Sendable, Equatable {
    /// Upper bounds (seconds) of the outage-duration histogram, `+Inf` implied after the last:
    /// 10 s, 30 s, 1 min, 5 min, 15 min, 30 min, 1 h, 4 h: eight, because every bound is a series
    /// per device (docs/performance.md). Changing them changes the state-file format.
    public static let durationBounds: [Double] = [10, 30, 60, 300, 900, 1800, 3600, 14400]

    /// Transfers to battery (mode 4) from another mode: outages. A self-test is not one.
    public var transfers: Int = 0
    /// Seconds on battery, integrated between consecutive on-battery readings. Finite, ≥ 0.
    public var onBatterySeconds: Double = 0
    /// Energy delivered while on battery, in joules. Finite, ≥ 0.
    public var dischargeJoules: Double = 0
    /// Finished outages whose duration was observed, per bucket (not cumulative):
    /// `durationBounds.count + 1` entries, the last for durations above the last bound.
    public var durationCounts: [Int] = Array(repeating: 0, count: OutageLedger.durationBounds.count + 1)
    /// Sum of the observed outage durations, seconds.
    public var durationSum: Double = 0
    /// Wall-clock start of the last (or current) outage; `nil` before the first or when the
    /// exporter had no wall clock.
    public var lastStart: Date?
    /// Wall-clock end of the last finished outage; `nil` when it is unknown (the outage ended
    /// while the exporter was down or the device unreadable) or none finished yet.
    public var lastEnd: Date?
    /// Duration of the last finished outage, seconds; `nil` when its end is unknown.
    public var lastDuration: Double?
    /// Battery runtime WinPower reported at the last on-battery reading of the last finished
    /// outage, seconds; `nil` when its end is unknown or no runtime was reported.
    public var lastRuntime: Double?
    /// Battery self-tests seen starting (transfers to mode 5).
    public var tests: Int = 0
    /// Wall-clock start of the last self-test.
    public var lastTest: Date?
    /// The raw `testStatus` code reported at the end of the last self-test (or during it).
    public var lastTestStatus: Int?
    /// An outage is in progress (survives restarts: its start is kept).
    public var inOutage = false
    /// The runtime reported at the latest on-battery reading of the outage in progress.
    public var openRuntime: Double?
    /// A self-test is in progress.
    public var inTest = false

    public init() {}

    /// Whether nothing was ever recorded (such a ledger is not written to the state file).
    ///
    /// The same as `self == OutageLedger()`, field by field without building a ledger: the
    /// state file asks it of every device on every save.
    public var isEmpty: Bool {
        transfers == 0 && tests == 0 && !inOutage && !inTest
            && onBatterySeconds == 0 && dischargeJoules == 0 && durationSum == 0
            && lastStart == nil && lastEnd == nil && lastDuration == nil && lastRuntime == nil
            && lastTest == nil && lastTestStatus == nil && openRuntime == nil
            && durationCounts.count == Self.durationBounds.count + 1 && durationCounts.allSatisfy { $0 == 0 }
    }

    /// Observed finished outages (the histogram's count).
    public var observedOutages: Int { durationCounts.reduce(0) { $0 &+ $1 } }

    /// Adds one finished outage of `seconds` to the histogram (negative or non-finite values,
    /// and one that would make the sum infinite, are ignored: the state must stay writable).
    public mutating func observe(duration seconds: Double) {
        guard seconds.isFinite, seconds >= 0, (durationSum + seconds).isFinite else { return }
        let index = Self.durationBounds.firstIndex { seconds <= $0 } ?? Self.durationBounds.count
        durationCounts[index] = StoredDeviceEnergy.incremented(durationCounts[index])
        durationSum += seconds
    }

    /// Cumulative bucket counts, as the exposition shows them (`le` buckets then `+Inf`).
    public var cumulativeCounts: [UInt64] {
        var running: UInt64 = 0
        return durationCounts.map { count in
            running &+= UInt64(max(0, count))
            return running
        }
    }
}
