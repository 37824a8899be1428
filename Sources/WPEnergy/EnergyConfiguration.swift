/// Settings of the energy integration, with the defaults of the `energy.*` configuration keys.
public struct EnergyConfiguration: Sendable, Equatable {
    /// The longest interval between two valid samples of a device that is still integrated
    /// (`energy.max_gap`, default 60 s). A longer interval is skipped and counted as a gap:
    /// nothing is guessed for it.
    public var maxGap: Duration
    /// The plausibility bound on active power for every device (`energy.max_power_watts`);
    /// `nil` derives it per device (`PowerBound`).
    public var maxPowerWatts: Double?

    /// Creates settings; by default those of the `energy.*` keys.
    public init(maxGap: Duration = .seconds(60), maxPowerWatts: Double? = nil) {
        self.maxGap = maxGap
        self.maxPowerWatts = maxPowerWatts
    }

    /// The highest plausible active power of a device rated `ratingVa` (nil when WinPower
    /// reports no rating): the configured bound, else `PowerBound/bound(ratingVa:)`.
    public func maxWatts(ratingVa: Double?) -> Double {
        maxPowerWatts ?? PowerBound.bound(ratingVa: ratingVa)
    }
}
