import WPPOSIX
import FoundationEssentials
import Synchronization
import WPLogging

extension FileEnergyStore {
    /// The state file this process last wrote, or loaded at startup: where the newest totals
    /// known to be on disk are.
    struct WrittenState: Sendable, Equatable {
        var path: String
        /// The file's identity when written (`nil`: unknown, never reported as present).
        var identity: FileSystem.Identity?
        var generation: UInt64
        var savedAt: Date?
        /// Where the data directory holding the file was moved while running (from the lock
        /// file's new location), if it was.
        var movedTo: String?
    }

    /// Makes the data directory usable again before a save when it was deleted, renamed or
    /// replaced while running (or its lock file alone was removed or replaced): recreates the
    /// directory (mode 0755) and takes the lock again, logging a warning. Costs one `stat`
    /// when nothing changed.
    ///
    /// - Throws: ``StorageError/lockTaken(lockFile:ownerPID:)`` when another process locked the
    ///   directory meanwhile (the store then keeps its old lock and saves nothing there);
    ///   ``StorageError/system(operation:path:errno:message:)`` when the directory cannot be
    ///   recreated or locked (read-only, a file in its place).
    func reclaimDataDirectory() throws(StorageError) {
        guard let held = guarded.withLock({ $0.lock }), !held.isCurrent() else { return }
        // Where the old lock file went tells where the last state file written went with it.
        let previous = guarded.withLock { guarded -> String? in
            let previous = guarded.lock?.currentLocation()
            if var written = guarded.lastWritten, written.movedTo == nil, let previous,
               !previous.hasSuffix(" (deleted)"), previous.hasSuffix("/" + DataDirectoryLock.fileName) {
                written.movedTo = String(previous.dropLast(DataDirectoryLock.fileName.count + 1))
                guarded.lastWritten = written
            }
            return previous
        }
        let recreated = FileSystem.identity(of: paths.directory) == nil
        try FileSystem.ensureDirectory(paths.directory)
        if recreated {
            // The new directory's entry is flushed too, so the saves into it survive a power loss.
            let parent = POSIXFile.parentDirectory(of: paths.directory)
            try FileSystem.syncDirectory(parent.isEmpty ? "." : parent)
        }
        let lock: DataDirectoryLock
        do {
            lock = try DataDirectoryLock.acquire(directory: paths.directory)
        } catch {
            if case .locked(let file, let owner) = error { throw .lockTaken(lockFile: file, ownerPID: owner) }
            throw error
        }
        let released = guarded.withLock { guarded -> DataDirectoryLock? in
            // Closed meanwhile: the new lock is released at once.
            guard guarded.lock != nil else { return lock }
            defer { guarded.lock = lock }
            return guarded.lock
        }
        var old = released
        old?.release()
        var fields: LogFields = ["data_dir": "\(paths.directory)", "lock_file": "\(lock.path)"]
        if let previous { fields["previous_lock_file"] = "\(previous)" }
        if recreated {
            logger.warn("the data directory disappeared while running: recreated it and took its lock again; "
                        + "the energy totals are saved there from now on", fields)
        } else {
            logger.warn("the data directory's lock file was removed or replaced while running: took the lock again",
                        fields)
        }
    }

    /// Where the newest totals known to be on disk are: the state file this process last
    /// wrote (or loaded at startup), checked to be still there (or where its data directory
    /// was moved). For the message of a shutdown whose final save failed.
    public func lastSavedTotals() -> SavedTotals {
        guard let written = guarded.withLock({ $0.lastWritten }) else { return .none(dataDirectory: paths.directory) }
        var candidates = [written.path]
        if let moved = written.movedTo, let name = written.path.split(separator: "/").last {
            candidates.append(moved + "/" + name)
        }
        for candidate in candidates where written.identity != nil && FileSystem.identity(of: candidate) == written.identity {
            return .file(path: candidate, generation: written.generation, savedAt: written.savedAt)
        }
        return .gone(path: written.path, generation: written.generation)
    }
}
