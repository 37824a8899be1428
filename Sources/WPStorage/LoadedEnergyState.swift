/// The result of ``EnergyStore/load()``: a state and how it was obtained.
public struct LoadedEnergyState: Sendable, Equatable {
    /// Where the state came from.
    public enum Source: Sendable, Equatable {
        /// Nothing was stored yet: a first start.
        case fresh
        /// The current state file.
        case primary
        /// The previous generation, because the current file was missing or bad.
        case backup
        /// Both the current file and the backup were bad: totals restart from zero. The bad
        /// files were kept aside; exporters should raise an alert-worthy flag.
        case reset
    }

    /// The state loaded (fresh, or reset to zero, when nothing usable was stored).
    public var state: EnergyState
    /// Where ``state`` came from.
    public var source: Source
    /// Damaged files that were moved aside (new paths), never deleted.
    public var quarantined: [String]
    /// What the import of the previous exporter's files did, when it ran during this load.
    public var legacyImport: LegacyImportReport?

    /// Creates a load result.
    public init(state: EnergyState, source: Source, quarantined: [String] = [],
                legacyImport: LegacyImportReport? = nil) {
        self.state = state
        self.source = source
        self.quarantined = quarantined
        self.legacyImport = legacyImport
    }

    /// `true` when stored totals were lost (both files bad); export it as a metric flag.
    public var stateWasReset: Bool { source == .reset }
}
