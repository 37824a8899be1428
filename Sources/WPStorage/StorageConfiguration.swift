/// Settings of the durable energy store, with the defaults of the `storage.*` configuration keys.
///
/// The executable maps `storage.data_dir`, `storage.file_permissions`, `storage.sync_write` and
/// `storage.flush_interval` onto this struct; an embedding service can fill it directly.
///
/// ```swift
/// var configuration = StorageConfiguration()
/// configuration.dataDirectory = "/var/lib/wpexporter"
/// let store = try FileEnergyStore(configuration: configuration, logger: logger)
/// ```
public struct StorageConfiguration: Sendable, Equatable {
    /// Directory holding the state file, its backup, the lock file and (when migrating) the
    /// previous exporter's `<device_id>.txt` files. Created with mode 0755 when missing.
    public var dataDirectory: String
    /// Mode applied to the state file and its backup (default 0644).
    public var filePermissions: UInt16
    /// `true` (default): persist after every collection cycle. `false`: persist at most every
    /// ``flushInterval`` and on shutdown. See ``PersistencePolicy``.
    public var syncWrite: Bool
    /// Minimum time between two saves when ``syncWrite`` is `false` (default 60 s).
    public var flushInterval: Duration
    /// Whether the previous exporter's per-device files are imported on first start.
    public var importLegacyFiles: Bool

    public init(dataDirectory: String = "./data", filePermissions: UInt16 = 0o644,
                syncWrite: Bool = true, flushInterval: Duration = .seconds(60),
                importLegacyFiles: Bool = true) {
        self.dataDirectory = dataDirectory
        self.filePermissions = filePermissions
        self.syncWrite = syncWrite
        self.flushInterval = flushInterval
        self.importLegacyFiles = importLegacyFiles
    }

    /// The save cadence these settings ask for.
    public var persistencePolicy: PersistencePolicy {
        PersistencePolicy(syncWrite: syncWrite, flushInterval: flushInterval)
    }
}

/// When the energy totals are written to the store: the one rule shared by every owner.
///
/// The store itself saves whenever it is asked; the caller that runs collection cycles (the
/// energy meter) asks this policy once per cycle. With `syncWrite` every cycle persists; without
/// it a cycle persists only when ``flushInterval`` has passed since the last successful save
/// (on a monotonic clock). Shutdown always persists, whatever the policy says. A failed save
/// does not count as a save, so the next cycle tries again.
public struct PersistencePolicy: Sendable, Equatable {
    public var syncWrite: Bool
    public var flushInterval: Duration

    public init(syncWrite: Bool = true, flushInterval: Duration = .seconds(60)) {
        self.syncWrite = syncWrite
        self.flushInterval = flushInterval
    }

    /// Whether a cycle should persist.
    ///
    /// - Parameter elapsed: monotonic time since the last successful save in this process, or
    ///   `nil` when nothing was saved yet (the first cycle always persists).
    /// - Returns: `true` when the state should be saved now.
    public func shouldPersist(sinceLastSave elapsed: Duration?) -> Bool {
        if syncWrite { return true }
        guard let elapsed else { return true }
        return elapsed >= flushInterval
    }
}
