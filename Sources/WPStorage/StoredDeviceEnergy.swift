/// The persisted totals of one device.
public struct StoredDeviceEnergy: Sendable, Equatable {
    /// Cumulative active energy in joules, unrounded. Finite and ≥ 0.
    public var joules: Double
    /// Number of gaps longer than `energy.max_gap` that were skipped for this device.
    public var gaps: Int

    public init(joules: Double, gaps: Int = 0) {
        self.joules = joules
        self.gaps = gaps
    }

    /// The total in watt-hours.
    public var wattHours: Double { joules / 3600 }
}
