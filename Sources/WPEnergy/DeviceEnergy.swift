import WPStorage

/// The energy totals of one device.
public struct DeviceEnergy: Sendable, Equatable {
    /// Cumulative active energy in joules, unrounded.
    public var joules: Double
    /// Intervals longer than `energy.max_gap` that were skipped (since the state was created).
    public var gaps: Int
    /// The device's outage ledger (transfers, time and energy on battery, self-tests).
    public var ledger: OutageLedger

    public init(joules: Double = 0, gaps: Int = 0, ledger: OutageLedger = OutageLedger()) {
        self.joules = joules
        self.gaps = gaps
        self.ledger = ledger
    }

    /// The total in watt-hours (the previous exporter's `winpower_device_cumulative_energy`).
    public var wattHours: Double { joules / 3600 }
}
