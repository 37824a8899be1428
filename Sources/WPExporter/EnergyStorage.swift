package import WPLogging
package import WPStorage
package import WPWallClock

/// Where an ``Exporter`` keeps its energy totals (``Exporter/Options/energyStorage``).
///
/// ```swift
/// var options = Exporter.Options(clock: ContinuousClock(), logger: logger)
/// options.energyStorage = .memory   // a test or preview: no data directory, totals from zero
/// ```
public struct EnergyStorage: Sendable {
    /// Opens the store for the configuration's storage settings.
    package let make: @Sendable (StorageConfiguration, WPLogger, WallClock) throws -> any EnergyStore
    /// Whether this is `storage.data_dir` (what the start-up log line names).
    package let isDataDirectory: Bool

    package init(isDataDirectory: Bool,
                 make: @escaping @Sendable (StorageConfiguration, WPLogger, WallClock) throws -> any EnergyStore) {
        self.isDataDirectory = isDataDirectory
        self.make = make
    }

    /// The state file in `storage.data_dir`, locked while the exporter runs: totals survive
    /// restarts (docs/energy.md). The default.
    public static var dataDirectory: EnergyStorage {
        EnergyStorage(isDataDirectory: true) { configuration, logger, wallClock in
            try FileEnergyStore(configuration: configuration, logger: logger, wallClock: wallClock)
        }
    }

    /// In memory only: the totals start from zero and end with the process; no directory is
    /// created, read or locked, and `storage.*` is not used. `/health` names the store
    /// `memory`. For tests and previews of an embedding service.
    public static var memory: EnergyStorage {
        EnergyStorage(isDataDirectory: false) { _, _, _ in InMemoryEnergyStore(history: false) }
    }

    /// A store of the caller's (the tests' fakes).
    package static func store(_ store: any EnergyStore) -> EnergyStorage {
        EnergyStorage(isDataDirectory: false) { _, _, _ in store }
    }
}
