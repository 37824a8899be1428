import WPPOSIX
import WPRuntime
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

extension RotatingFileSink {
    /// The rotated files next to the active file, newest first.
    func listBackups() -> [Backup] {
        let entries = FileIO.directoryEntries(naming.directory)
        var byName: [String: Backup] = [:]
        for entry in entries {
            let compressed = entry.hasSuffix(".gz")
            let name = compressed ? String(entry.dropLast(3)) : entry
            guard let parsed = naming.parse(name) else { continue }
            var backup = byName[name] ?? Backup(name: name, stamp: parsed.stamp, sequence: parsed.sequence,
                                                time: parsed.time, hasPlain: false, hasGzip: false)
            if compressed { backup.hasGzip = true } else { backup.hasPlain = true }
            byName[name] = backup
        }
        return byName.values.sorted(by: Backup.newerFirst)
    }

    /// Deletes expired and surplus backups, removes abandoned temporary files, and gzips the
    /// remaining uncompressed backups. Runs on the maintenance queue only.
    func runMaintenance() {
        removeAbandonedTemporaries()
        let backups = listBackups()
        let current = now()
        var kept: [Backup] = []
        for (index, backup) in backups.enumerated() {
            let surplus = configuration.maxBackups > 0 && index >= configuration.maxBackups
            let expired = configuration.maxAge > 0 && current.seconds(since: backup.time) > configuration.maxAge
            if surplus || expired {
                if backup.hasPlain { remove(backup.name) }
                if backup.hasGzip { remove(backup.name + ".gz") }
            } else {
                kept.append(backup)
            }
        }
        guard configuration.compress else { return }
        for backup in kept where backup.hasPlain {
            if backup.hasGzip {
                // A previous run renamed the finished `.gz` into place but stopped before
                // removing the original.
                remove(backup.name)
            } else {
                compress(backup.name)
            }
        }
    }

    private func compress(_ name: String) {
        let source = naming.path(name)
        let temporary = source + ".gz.tmp"
        do {
            try GzipFile.compress(source, to: temporary, mode: configuration.fileMode)
        } catch {
            _ = unlink(temporary)
            failures.report(kind: "compress", "cannot compress \(source): \(error.description)")
            return
        }
        if let code = POSIXFile.rename(temporary, to: source + ".gz") {
            _ = unlink(temporary)
            failures.report(kind: "compress", "cannot rename \(temporary): \(systemErrorText(code)) (errno \(code))")
            return
        }
        remove(name)
    }

    private func removeAbandonedTemporaries() {
        let entries = FileIO.directoryEntries(naming.directory)
        for entry in entries where entry.hasSuffix(".gz.tmp") && naming.parse(String(entry.dropLast(7))) != nil {
            remove(entry)
        }
    }

    private func remove(_ name: String) {
        let path = naming.path(name)
        if unlink(path) != 0 {
            let code = errno
            guard code != ENOENT else { return }
            failures.report(kind: "remove", "cannot remove \(path): \(systemErrorText(code)) (errno \(code))")
        }
    }
}
