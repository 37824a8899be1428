public import FoundationEssentials

/// One device's outage ledger as the state file stores it: the values of its `o` line, nothing
/// more.
///
/// WPStorage only holds, writes and validates these values; what they mean and the rules that
/// fill them belong to the energy domain (`WPEnergy.OutageLedger`, which converts to and from
/// this record when a state is loaded or saved). Each field is the value of one key of the `o`
/// line (docs/storage.md). A record whose every field is at its default is ``isEmpty`` and is
/// not written at all.
public struct StoredOutageLedger: Sendable, Equatable {
    /// Entries in ``durationCounts``: eight histogram bounds plus `+Inf`. Part of the file
    /// format: a `hist` value with another number of entries rejects the file.
    public static let durationBucketCount = 9

    /// `transfers`: an integer ≥ 0.
    public var transfers: Int = 0
    /// `battery-s`: finite, ≥ 0.
    public var onBatterySeconds: Double = 0
    /// `discharge-j`: finite, ≥ 0.
    public var dischargeJoules: Double = 0
    /// `hist`: ``durationBucketCount`` counts ≥ 0, not cumulative; written when any is not 0.
    public var durationCounts: [Int] = Array(repeating: 0, count: StoredOutageLedger.durationBucketCount)
    /// `hist-sum`: finite, ≥ 0.
    public var durationSum: Double = 0
    /// `start-ms`: Unix milliseconds within ±10¹⁴ (clamped when written).
    public var lastStart: Date?
    /// `end-ms`: like `start-ms`.
    public var lastEnd: Date?
    /// `duration-s`: finite, ≥ 0.
    public var lastDuration: Double?
    /// `runtime-s`: finite.
    public var lastRuntime: Double?
    /// `tests`: an integer ≥ 0.
    public var tests: Int = 0
    /// `test-ms`: like `start-ms`.
    public var lastTest: Date?
    /// `test-status`: any integer.
    public var lastTestStatus: Int?
    /// `outage=1` when set.
    public var inOutage = false
    /// `open-runtime-s`: finite.
    public var openRuntime: Double?
    /// `test=1` when set.
    public var inTest = false

    /// Creates an empty ledger, every field at its default.
    public init() {}

    /// Whether every field is at its default (such a record gets no `o` line).
    ///
    /// The same as `self == StoredOutageLedger()`, field by field without building a record:
    /// the state file asks it of every device on every save.
    public var isEmpty: Bool {
        transfers == 0 && tests == 0 && !inOutage && !inTest
            && onBatterySeconds == 0 && dischargeJoules == 0 && durationSum == 0
            && lastStart == nil && lastEnd == nil && lastDuration == nil && lastRuntime == nil
            && lastTest == nil && lastTestStatus == nil && openRuntime == nil
            && durationCounts.count == Self.durationBucketCount && durationCounts.allSatisfy { $0 == 0 }
    }
}
