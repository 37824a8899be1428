import FoundationEssentials
import Synchronization
public import WPLogging
public import WPWallClock

/// The crash-safe ``EnergyStore``: one checksummed state file for all devices in the data
/// directory, replaced atomically, with the previous generation kept as a backup.
///
/// Files in `storage.data_dir`:
/// - `energy.state` — the current state (see the format in `docs/storage.md`);
/// - `energy.state.bak` — the previous generation;
/// - `energy.state.tmp` — a save in progress (ignored on load);
/// - `energy.state.corrupt-<UTC time>` — damaged files moved aside, never deleted;
/// - `wpexporter.lock` — the exclusive lock, holding the owner's pid.
///
/// The directory is durable state: deleted, renamed or replaced while the store runs, it is
/// recreated and locked again at the next save (see ``save(_:)``); while that fails, saves fail
/// and ``lastSavedTotals()`` tells where the newest totals on disk are.
///
/// A save writes the temp file and `fsync`s it, hard-links the current file as the backup
/// (or copies and `fsync`s it where the file system refuses hard links: vfat, exFAT, SMB,
/// some FUSE), renames the temp file over the current one and `fsync`s the directory: two
/// `fsync`s per save whatever the number of devices (three when backups are copied). Every name that ever points at a file points at
/// content that was already flushed, so a crash at any moment leaves a loadable state.
///
/// ```swift
/// let store = try FileEnergyStore(configuration: StorageConfiguration(dataDirectory: "./data"),
///                                  logger: logger)
/// let loaded = try store.load()          // at startup
/// try store.save(updatedState)            // once per cycle
/// store.close()                           // at shutdown, after the last save
/// ```
public final class FileEnergyStore: EnergyStore {
    /// Counters for benchmarks and self-metrics.
    public struct Statistics: Sendable, Equatable {
        /// Successful saves.
        public var saves: Int = 0
        /// Failed saves.
        public var failedSaves: Int = 0
        /// `fsync` calls made by saves (files and directory).
        public var fsyncs: Int = 0
        /// Size of the last state file written.
        public var lastSaveBytes: Int = 0
        /// Backups made by copy (+ `fsync`) because the file system refused a hard link.
        public var copiedBackups: Int = 0
    }

    /// The settings the store was opened with.
    public let configuration: StorageConfiguration
    let paths: Paths
    let logger: WPLogger
    let wallClock: WallClock
    let calls: FileSystem.Calls
    /// The lock file, generation and counters: held for in-memory work only, so ``close()``
    /// and ``statistics`` never wait for a save in progress.
    let guarded: Mutex<Guarded>
    /// Serialises saves; held across a save's I/O and taken by nothing else.
    let saving = Mutex(())
    /// The other components' sections: filled by ``load()``, written by every ``save(_:)``.
    public let sections = StateSections()

    struct Guarded {
        var lock: DataDirectoryLock?
        var generation: UInt64 = 0
        var statistics = Statistics()
        /// The state file last written or loaded (``lastSavedTotals()``).
        var lastWritten: WrittenState?
    }

    struct Paths: Sendable {
        let directory: String
        var state: String { directory + "/energy.state" }
        var backup: String { directory + "/energy.state.bak" }
        var temporary: String { directory + "/energy.state.tmp" }
        var backupLink: String { directory + "/energy.state.bak.tmp" }
    }

    /// Opens the store: creates the data directory if missing (mode 0755) and takes its lock.
    ///
    /// - Parameters:
    ///   - configuration: the data directory and file settings.
    ///   - logger: receives recovery and migration reports.
    ///   - wallClock: the time of day, used only for the informational `savedAt` and for naming files
    ///     moved aside; never for energy.
    /// - Throws: ``StorageError/locked(lockFile:ownerPID:)`` when another process uses the
    ///   directory; ``StorageError/system(operation:path:errno:message:)`` when it cannot be
    ///   created or locked.
    public convenience init(configuration: StorageConfiguration, logger: WPLogger,
                            wallClock: WallClock = .system) throws {
        try self.init(configuration: configuration, logger: logger, wallClock: wallClock, calls: .system)
    }

    /// Opens the store with replaced system calls (tests).
    init(configuration: StorageConfiguration, logger: WPLogger, wallClock: WallClock,
         calls: FileSystem.Calls) throws {
        var directory = configuration.dataDirectory
        while directory.count > 1 && directory.hasSuffix("/") { directory.removeLast() }
        if directory.isEmpty { directory = "." }
        try FileSystem.ensureDirectory(directory)
        let lock = try DataDirectoryLock.acquire(directory: directory)
        self.configuration = configuration
        self.paths = Paths(directory: directory)
        self.logger = logger
        self.wallClock = wallClock
        self.calls = calls
        self.guarded = Mutex(Guarded(lock: lock))
    }

    deinit {
        // Releasing the file descriptor of the lock is resource hygiene, not lifecycle work:
        // a store dropped without `close()` must not leak a descriptor (the kernel would
        // release the lock anyway when the process exits).
        guarded.withLock { $0.lock?.release() }
    }

    /// Releases the data directory's lock; later calls to ``save(_:)`` throw. Idempotent.
    public func close() {
        guarded.withLock { guarded in
            guarded.lock?.release()
            guarded.lock = nil
        }
    }

    /// Counters since the store was opened.
    public var statistics: Statistics { guarded.withLock { $0.statistics } }

    /// The path of the current state file.
    public var stateFilePath: String { paths.state }

    /// The data directory as configured (`storage.data_dir`).
    public var location: String { configuration.dataDirectory }

    /// Writes `state` atomically (temp file, `fsync`, backup link, rename, directory `fsync`).
    ///
    /// First it checks, with one `stat`, that the lock file is still the one it locked: when
    /// the data directory was deleted, renamed or replaced while running (or the lock file
    /// alone), it recreates the directory and takes the lock again (logged), so the totals are
    /// saved again and a second exporter cannot start on the directory unnoticed.
    ///
    /// - Parameter state: the full state; its `generation` and `savedAt` are assigned here.
    /// - Throws: ``StorageError`` when any step fails (or the state holds a total that is not a
    ///   finite number ≥ 0, which could not be loaded back); the previous state file is untouched.
    ///   ``StorageError/lockTaken(lockFile:ownerPID:)`` when another process locked the data
    ///   directory after its lock file was removed or replaced: nothing is written there.
    public func save(_ state: EnergyState) throws {
        var firstCopiedBackup: Int32?
        try saving.withLock { _ throws(StorageError) in
            let generation = try guarded.withLock { guarded throws(StorageError) -> UInt64 in
                guard guarded.lock != nil else { throw .closed(dataDirectory: paths.directory) }
                if let (id, bad) = state.devices.first(where: { !$0.value.joules.isFinite || $0.value.joules < 0 || $0.value.gaps < 0 }) {
                    guarded.statistics.failedSaves += 1
                    throw .invalidState(reason: "device '\(id)' has total \(bad.joules) J and \(bad.gaps) gaps")
                }
                return guarded.generation
            }
            var stamped = state
            // Saturating: a state file may carry any generation up to UInt64.max (it is only a
            // counter for humans); the next save must not trap on it.
            stamped.generation = StoredDeviceEnergy.incremented(max(generation, state.generation))
            stamped.savedAt = wallClock.now
            let (records, change, dropped) = sections.snapshot()
            for entry in dropped {
                logger.warn("a section of the state file no component reads is dropped: the sections nobody reads may hold 1 MiB",
                            ["section": .string(entry.section), "bytes": .int(entry.bytes)])
            }
            stamped.sections = records
            let bytes = StateFileFormat.encode(stamped)
            var fsyncs = 0
            let written: FileSystem.Identity
            do throws(StorageError) {
                try reclaimDataDirectory()
                written = try FileSystem.writeAndSync(paths.temporary, bytes, mode: configuration.filePermissions)
                fsyncs += 1
                let method = try FileSystem.backup(paths.state, as: paths.backupLink,
                                                   mode: configuration.filePermissions, calls: calls)
                if case .copy(let errno) = method {
                    fsyncs += 1
                    let first = guarded.withLock { guarded in
                        defer { guarded.statistics.copiedBackups += 1 }
                        return guarded.statistics.copiedBackups == 0
                    }
                    if first { firstCopiedBackup = errno }
                }
                if method != .none {
                    try FileSystem.rename(paths.backupLink, paths.backup)
                }
                try FileSystem.rename(paths.temporary, paths.state)
                try FileSystem.syncDirectory(paths.directory)
                fsyncs += 1
            } catch {
                guarded.withLock { guarded in
                    guarded.statistics.fsyncs += fsyncs
                    guarded.statistics.failedSaves += 1
                }
                throw error
            }
            guarded.withLock { guarded in
                guarded.statistics.fsyncs += fsyncs
                guarded.generation = stamped.generation
                guarded.statistics.saves += 1
                guarded.statistics.lastSaveBytes = bytes.count
                guarded.lastWritten = WrittenState(path: paths.state, identity: written, generation: stamped.generation,
                                                   savedAt: stamped.savedAt)
            }
            sections.written(change)
        }
        if let errno = firstCopiedBackup {
            logger.info("the data directory refuses hard links; backups are copied (one more fsync per save)",
                        ["path": "\(paths.directory)", "errno": .int(Int(errno))])
        }
    }
}
