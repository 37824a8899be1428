/// Settings of the energy integration, with the defaults of the `energy.*` configuration keys.
public struct EnergyConfiguration: Sendable, Equatable {
    /// The longest interval between two valid samples of a device that is still integrated
    /// (`energy.max_gap`, default 60 s). A longer interval is skipped and counted as a gap:
    /// nothing is guessed for it.
    public var maxGap: Duration

    public init(maxGap: Duration = .seconds(60)) {
        self.maxGap = maxGap
    }
}
