import WPStorage

/// The energy totals of one device.
package struct DeviceEnergy: Sendable, Equatable {
    /// Cumulative active energy in joules, unrounded.
    package var joules: Double
    /// Intervals longer than `energy.max_gap` that were skipped (since the state was created).
    package var gaps: Int
    /// The device's outage ledger (transfers, time and energy on battery, self-tests).
    package var ledger: OutageLedger

    package init(joules: Double = 0, gaps: Int = 0, ledger: OutageLedger = OutageLedger()) {
        self.joules = joules
        self.gaps = gaps
        self.ledger = ledger
    }

    /// The total in watt-hours (the previous exporter's `winpower_device_cumulative_energy`).
    package var wattHours: Double { joules / 3600 }
}
