/// The persisted totals of one device.
public struct StoredDeviceEnergy: Sendable, Equatable {
    /// Cumulative active energy in joules, unrounded. Finite and ≥ 0.
    public var joules: Double
    /// Number of gaps longer than `energy.max_gap` that were skipped for this device.
    public var gaps: Int
    /// The device's outage ledger (empty for a device that never left mains nor self-tested,
    /// and for every device of a state written before the ledger existed).
    public var ledger: StoredOutageLedger

    /// Creates one device's totals.
    public init(joules: Double, gaps: Int = 0, ledger: StoredOutageLedger = StoredOutageLedger()) {
        self.joules = joules
        self.gaps = gaps
        self.ledger = ledger
    }

    /// The total in watt-hours.
    public var wattHours: Double { joules / 3600 }

    /// The largest energy, time or amount a stored record may hold (10¹⁸: joules, about 278 TWh,
    /// a 1 GW load for 30 years; seconds, 3 × 10¹⁰ years): far past any real total, so a larger
    /// one (`1e300` in a record whose checksum was made to match) is damage, named at load,
    /// never shown as a 301-digit number.
    public static let maximumStored = 1e18

    /// Whether `value` is a number a stored total may be: finite, 0 to ``maximumStored``.
    public static func isPlausible(_ value: Double) -> Bool { value.isFinite && value >= 0 && value <= maximumStored }

    /// The largest gap count kept: 2⁵³, the largest integer a `Double` (and so the exposition)
    /// holds exactly. A loaded count above it is clamped to it, and increments stop there.
    public static let maxGaps = 1 << 53

    /// `gaps` clamped into `0...maxGaps`.
    public static func clampedGaps(_ gaps: Int) -> Int { min(max(gaps, 0), maxGaps) }

    /// `gaps + 1`, saturating at ``maxGaps`` (a state file may hold any value up to `Int.max`).
    public static func incremented(_ gaps: Int) -> Int { clampedGaps(gaps) == maxGaps ? maxGaps : clampedGaps(gaps) + 1 }

    /// `value + 1`, saturating at `UInt64.max` (state-file generations).
    public static func incremented(_ value: UInt64) -> UInt64 { value == .max ? .max : value + 1 }
}
