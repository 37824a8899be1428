public import WPStorage

/// The energy totals of one device.
public struct DeviceEnergy: Sendable, Equatable {
    /// Cumulative active energy in joules, unrounded.
    public var joules: Double
    /// Intervals longer than `energy.max_gap` that were skipped (since the state was created).
    public var gaps: Int
    /// The device's outage ledger (transfers, time and energy on battery, self-tests).
    public var ledger: OutageLedger

    /// Creates a device's totals; by default those of a device never seen (zero, no gap, an empty
    /// ledger).
    public init(joules: Double = 0, gaps: Int = 0, ledger: OutageLedger = OutageLedger()) {
        self.joules = joules
        self.gaps = gaps
        self.ledger = ledger
    }

    /// The totals a state file stored for a device (gap counts clamped as the integrator keeps
    /// them).
    public init(_ stored: StoredDeviceEnergy) {
        self.init(joules: stored.joules, gaps: StoredDeviceEnergy.clampedGaps(stored.gaps), ledger: OutageLedger(stored.ledger))
    }

    /// The total in watt-hours (the previous exporter's `winpower_device_cumulative_energy`).
    public var wattHours: Double { joules / 3600 }

    /// These totals with each counter held at most at its value in `saved` (0 when `saved` is
    /// `nil`: a device never saved), the rest (outage in progress, last outage, last test) as
    /// they are: what a crash now would restore, for counters.
    public func heldAt(_ saved: DeviceEnergy?) -> DeviceEnergy {
        let saved = saved ?? DeviceEnergy()
        var held = self
        held.joules = min(joules, saved.joules)
        held.gaps = min(gaps, saved.gaps)
        held.ledger.transfers = min(ledger.transfers, saved.ledger.transfers)
        held.ledger.onBatterySeconds = min(ledger.onBatterySeconds, saved.ledger.onBatterySeconds)
        held.ledger.dischargeJoules = min(ledger.dischargeJoules, saved.ledger.dischargeJoules)
        held.ledger.tests = min(ledger.tests, saved.ledger.tests)
        // The histogram is held whole: its buckets and sum move together.
        if ledger.observedOutages > saved.ledger.observedOutages || ledger.durationSum > saved.ledger.durationSum {
            held.ledger.durationCounts = saved.ledger.durationCounts
            held.ledger.durationSum = saved.ledger.durationSum
        }
        return held
    }
}
