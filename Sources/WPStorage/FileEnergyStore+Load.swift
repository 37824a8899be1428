import WPTime
import WPPOSIX
import FoundationEssentials
import Synchronization
import WPLogging
import WPRuntime
import WPWallClock

extension FileEnergyStore {
    /// Loads the state at startup, recovering from damage, and imports the previous exporter's
    /// files once.
    ///
    /// Recovery, in order:
    /// 1. the current file is valid → use it;
    /// 2. it is missing, unreadable or fails its checksum/format → a bad file is moved aside as
    ///    `energy.state.corrupt-<UTC time>` (error log) and the backup is tried;
    /// 3. the backup is bad too → it is moved aside as well, totals restart from zero with an
    ///    error log and ``LoadedEnergyState/stateWasReset`` set. Bad files are never deleted
    ///    nor overwritten.
    ///
    /// When the loaded state has no import marker and ``StorageConfiguration/importLegacyFiles``
    /// is set, `<device_id>.txt` files are imported (devices already in the state win) and the
    /// marker is set; it is persisted by the next ``save(_:)``.
    ///
    /// - Returns: the state and a report of where it came from.
    /// - Throws: ``StorageError`` when a bad file cannot be moved aside (the store refuses to
    ///   run rather than risk overwriting evidence) or the store is closed.
    public func load() throws -> LoadedEnergyState {
        try guarded.withLock { guarded throws(StorageError) in
            guard guarded.lock != nil else { throw .closed(dataDirectory: paths.directory) }
            var loaded = try recover()
            if !loaded.state.legacyFilesImported && configuration.importLegacyFiles {
                let report = LegacyImport.run(directory: paths.directory, into: &loaded.state)
                loaded.state.legacyFilesImported = true
                loaded.legacyImport = report
                logImport(report)
            }
            guarded.generation = max(guarded.generation, loaded.state.generation)
            sections.reset(to: loaded.state.sections)
            let file: String? = switch loaded.source {
            case .primary: paths.state
            case .backup: paths.backup
            case .fresh, .reset: nil
            }
            if let file {
                guarded.lastWritten = WrittenState(path: file, identity: FileSystem.identity(of: file),
                                                   generation: loaded.state.generation, savedAt: loaded.state.savedAt)
            }
            return loaded
        }
    }

    private enum Candidate {
        case missing
        case valid(EnergyState)
        case bad(String)
    }

    /// - Throws: ``StorageError/symbolicLink(path:)`` for a link: never read through, nor moved
    ///   aside as damaged; the store refuses to start, naming it.
    private func read(_ path: String) throws(StorageError) -> Candidate {
        switch FileSystem.readFile(path, limit: FileSystem.stateFileLimit) {
        case .missing: return .missing
        case .failed(let error):
            if case .symbolicLink = error { throw error }
            return .bad(error.description)
        case .bytes(let bytes):
            switch StateFileFormat.decode(bytes) {
            case .success(let state): return .valid(state)
            case .failure(let failure): return .bad(failure.description)
            }
        }
    }

    private func recover() throws(StorageError) -> LoadedEnergyState {
        var quarantined: [String] = []
        let primary = try read(paths.state)
        switch primary {
        case .valid(let state):
            return LoadedEnergyState(state: state, source: .primary)
        case .bad(let reason):
            let aside = try quarantine(paths.state)
            quarantined.append(aside)
            logger.error("energy state file is damaged; moved aside, trying the backup",
                         ["path": "\(paths.state)", "moved_to": "\(aside)", "reason": "\(reason)"])
        case .missing:
            break
        }
        switch try read(paths.backup) {
        case .valid(let state):
            if case .missing = primary {
                logger.warn("energy state file is missing; using the backup",
                            ["path": "\(paths.state)", "backup": "\(paths.backup)"])
            } else {
                logger.warn("energy totals restored from the backup (previous generation)",
                            ["backup": "\(paths.backup)", "generation": .int(Int(clamping: state.generation))])
            }
            return LoadedEnergyState(state: state, source: .backup, quarantined: quarantined)
        case .missing:
            if case .missing = primary {
                return LoadedEnergyState(state: EnergyState(), source: .fresh)
            }
            logger.error("energy state file was damaged and there is no backup: totals restart from zero",
                         ["path": "\(paths.state)"])
            return LoadedEnergyState(state: EnergyState(), source: .reset, quarantined: quarantined)
        case .bad(let reason):
            let aside = try quarantine(paths.backup)
            quarantined.append(aside)
            logger.error("energy state backup is damaged too: totals restart from zero; damaged files kept",
                         ["backup": "\(paths.backup)", "moved_to": "\(aside)", "reason": "\(reason)",
                          "kept": "\(quarantined.joined(separator: ", "))"])
            return LoadedEnergyState(state: EnergyState(), source: .reset, quarantined: quarantined)
        }
    }

    /// Renames a damaged file to `<name>.corrupt-<UTC yyyyMMdd'T'HHmmss'Z'>[-n]`.
    private func quarantine(_ path: String) throws(StorageError) -> String {
        let stamp = Self.timestamp(wallClock.now)
        var candidate = "\(path).corrupt-\(stamp)"
        var suffix = 1
        while POSIXFile.exists(candidate) {
            suffix += 1
            candidate = "\(path).corrupt-\(stamp)-\(suffix)"
        }
        try FileSystem.rename(path, candidate)
        return candidate
    }

    static func timestamp(_ date: Date) -> String {
        let seconds = StateFileFormat.clampedMillis(date) / 1000
        let days = CivilDate.days(containing: seconds)
        let rest = seconds - days * 86_400
        let (year, month, day) = CivilDate.date(days: days)
        func two(_ value: Int64) -> String { value < 10 ? "0\(value)" : "\(value)" }
        return "\(year)\(two(month))\(two(day))T\(two(rest / 3600))\(two(rest % 3600 / 60))\(two(rest % 60))Z"
    }

    private func logImport(_ report: LegacyImportReport) {
        guard !report.imported.isEmpty || !report.skipped.isEmpty else { return }
        let total = report.imported.reduce(0) { $0 + $1.wattHours }
        logger.info("imported energy totals from the previous exporter's files (left in place)",
                    ["imported": .int(report.imported.count), "skipped": .int(report.skipped.count),
                     "total_wh": .double(total),
                     "devices": "\(report.imported.map(\.deviceID).joined(separator: ","))"])
        for skipped in report.skipped {
            logger.warn("previous exporter's file not imported", ["file": "\(skipped.file)", "reason": "\(skipped.reason)"])
        }
    }
}
