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

    /// Creates settings; by default those of the `storage.*` keys.
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
