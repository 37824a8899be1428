public import FoundationEssentials
public import WPStorage

/// The outage ledger of one device: how often mains failed, how long the battery carried the
/// load, how long outages lasted, and the device's battery self-tests.
///
/// The rules that fill it live in `OutageTrack`; this type holds the values and the duration
/// histogram. It is saved with the energy totals (same file, same atomic write, same recovery)
/// as a `WPStorage.StoredOutageLedger`, the plain record of the state file:
/// ``EnergyIntegrator`` converts when it is seeded from a loaded state and when it hands one
/// to be saved. Counters only grow.
public struct OutageLedger: Sendable, Equatable {
    /// Upper bounds (seconds) of the outage-duration histogram, `+Inf` implied after the last:
    /// 10 s, 30 s, 1 min, 5 min, 15 min, 30 min, 1 h, 4 h: eight, because every bound is a series
    /// per device (docs/performance.md). Changing them changes the state-file format, which stores
    /// one count per bucket (`StoredOutageLedger.durationBucketCount`, their number plus one).
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

    /// Creates an empty ledger: no outage, no self-test seen.
    public init() {}

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

extension OutageLedger {
    /// The ledger a state file stored for a device.
    ///
    /// - Parameter stored: the record loaded by WPStorage (validated by the state-file format).
    public init(_ stored: StoredOutageLedger) {
        transfers = stored.transfers
        onBatterySeconds = stored.onBatterySeconds
        dischargeJoules = stored.dischargeJoules
        durationCounts = stored.durationCounts
        durationSum = stored.durationSum
        lastStart = stored.lastStart
        lastEnd = stored.lastEnd
        lastDuration = stored.lastDuration
        lastRuntime = stored.lastRuntime
        tests = stored.tests
        lastTest = stored.lastTest
        lastTestStatus = stored.lastTestStatus
        inOutage = stored.inOutage
        openRuntime = stored.openRuntime
        inTest = stored.inTest
    }
}

extension StoredOutageLedger {
    /// `ledger` as the state file stores it.
    ///
    /// - Parameter ledger: the device's ledger; converting it back with
    ///   ``OutageLedger/init(_:)`` gives the same ledger.
    public init(_ ledger: OutageLedger) {
        self.init()
        transfers = ledger.transfers
        onBatterySeconds = ledger.onBatterySeconds
        dischargeJoules = ledger.dischargeJoules
        durationCounts = ledger.durationCounts
        durationSum = ledger.durationSum
        lastStart = ledger.lastStart
        lastEnd = ledger.lastEnd
        lastDuration = ledger.lastDuration
        lastRuntime = ledger.lastRuntime
        tests = ledger.tests
        lastTest = ledger.lastTest
        lastTestStatus = ledger.lastTestStatus
        inOutage = ledger.inOutage
        openRuntime = ledger.openRuntime
        inTest = ledger.inTest
    }
}
