import Foundation
import Testing
import WPTestThreads
import WPLogging
import WPRuntime
import WPStorage
import WPTestSupport
#if canImport(Glibc)
import Glibc
#endif

/// The data directory is durable state: deleted, renamed or replaced while a store runs, it is
/// recreated and locked again at the next save; a lock taken by someone else meanwhile is
/// refused loudly; a store that cannot save says where the newest totals on disk are. The
/// store's I/O runs on a thread of its own (``NamedThread/run(name:_:)``), never on Swift's pool.
@Suite(.ownThreads, .timeLimit(.minutes(3))) struct DataDirectoryReclaimTests {
    /// A store on `<root>/data` with its log captured, loaded and saved once (generation 1).
    struct Opened: Sendable {
        let root: String
        let directory: String
        let store: FileEnergyStore
        let sink: InMemoryLogSink

        var lockFile: String { directory + "/wpexporter.lock" }
        var stateFile: String { directory + "/energy.state" }
    }

    static func withOpenedStore(_ body: @escaping @Sendable (Opened) throws -> Void) async throws {
        try await NamedThread.run(name: "test-reclaim") {
            try withTemporaryDirectory { root in
                let sink = InMemoryLogSink()
                let directory = root + "/data"
                let store = try FileEnergyStore(configuration: StorageConfiguration(dataDirectory: directory),
                                                logger: sink.logger(label: "storage"))
                defer { store.close() }
                _ = try store.load()
                try store.save(sampleState(step: 1))
                try body(Opened(root: root, directory: directory, store: store, sink: sink))
            }
        }
    }

    static func openSecond(_ directory: String) throws -> FileEnergyStore {
        try FileEnergyStore(configuration: StorageConfiguration(dataDirectory: directory), logger: .disabled)
    }

    static func pid(in lockFile: String) -> String? {
        (try? String(contentsOfFile: lockFile, encoding: .utf8))?.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    @Test func aDeletedDataDirectoryIsRecreatedRelockedAndSavedAtTheNextSave() async throws {
        try await Self.withOpenedStore { opened in
            try FileManager.default.removeItem(atPath: opened.directory)
            try opened.store.save(sampleState(step: 2))
            #expect(FileManager.default.fileExists(atPath: opened.stateFile))
            #expect(Self.pid(in: opened.lockFile) == "\(getpid())")
            // The lock is held again: a second store is refused, naming this process.
            #expect(throws: StorageError.locked(lockFile: opened.lockFile, ownerPID: getpid())) {
                _ = try Self.openSecond(opened.directory)
            }
            let warning = opened.sink.records.first { $0.message.contains("disappeared while running") }
            #expect(warning?.level == .warn)
            #expect(warning?.fields["previous_lock_file"].map { "\($0)".hasSuffix("(deleted)") } == true)
            let saved = opened.store.lastSavedTotals()
            #expect(saved.savedAt != nil)
            #expect(saved == .file(path: opened.stateFile, generation: 2, savedAt: saved.savedAt))
        }
    }

    @Test func aRenamedDataDirectoryIsRecreatedAndTheTotalsSavedWhereTheDirectoryWas() async throws {
        try await Self.withOpenedStore { opened in
            try FileManager.default.moveItem(atPath: opened.directory, toPath: opened.root + "/data.old")
            try opened.store.save(sampleState(step: 2))
            let second = try FileEnergyStore(configuration: StorageConfiguration(dataDirectory: opened.root + "/data.old"),
                                             logger: .disabled)
            defer { second.close() }
            // The old directory is free (its lock released) and keeps the first generation.
            #expect(try second.load().state.devices == sampleState(step: 1).devices)
            let warning = opened.sink.records.first { $0.message.contains("disappeared while running") }
            #expect(warning?.fields["previous_lock_file"].map { "\($0)" } == opened.root + "/data.old/wpexporter.lock")
        }
    }

    @Test func aRemovedLockFileIsTakenAgainBeforeASecondStoreCanStart() async throws {
        try await Self.withOpenedStore { opened in
            try FileManager.default.removeItem(atPath: opened.lockFile)
            try opened.store.save(sampleState(step: 2))
            #expect(Self.pid(in: opened.lockFile) == "\(getpid())")
            #expect(throws: StorageError.locked(lockFile: opened.lockFile, ownerPID: getpid())) {
                _ = try Self.openSecond(opened.directory)
            }
            #expect(opened.sink.records.contains { $0.level == .warn && $0.message.contains("lock file was removed or replaced") })
        }
    }

    @Test func aLockTakenByAnotherStoreMeanwhileStopsSavingUntilItIsReleased() async throws {
        try await Self.withOpenedStore { opened in
            try FileManager.default.removeItem(atPath: opened.directory)
            // A second exporter starts on the path before the first one's next save.
            let second = try Self.openSecond(opened.directory)
            _ = try second.load()
            try second.save(sampleState(step: 7))
            let error = #expect(throws: StorageError.lockTaken(lockFile: opened.lockFile, ownerPID: getpid())) {
                try opened.store.save(sampleState(step: 2))
            }
            #expect(error?.description.contains("the data directory's lock was lost") == true)
            #expect(opened.store.statistics.failedSaves == 1)
            // Nothing of the first store was written into the second one's directory.
            #expect(try second.load().state.devices == sampleState(step: 7).devices)
            second.close()
            // Released: the first store takes the directory again at its next save.
            try opened.store.save(sampleState(step: 3))
            #expect(Self.pid(in: opened.lockFile) == "\(getpid())")
            #expect(throws: StorageError.locked(lockFile: opened.lockFile, ownerPID: getpid())) {
                _ = try Self.openSecond(opened.directory)
            }
        }
    }

    @Test func aDataDirectoryThatCannotBeRecreatedFailsTheSaveAndTellsWhereTheTotalsWent() async throws {
        try await Self.withOpenedStore { opened in
            try FileManager.default.moveItem(atPath: opened.directory, toPath: opened.root + "/data.old")
            _ = FileManager.default.createFile(atPath: opened.directory, contents: Data("not a directory".utf8))
            let error = #expect(throws: StorageError.self) { try opened.store.save(sampleState(step: 2)) }
            #expect(error?.description.contains(opened.directory) == true)
            #expect(opened.store.lastSavedTotals() == .file(path: opened.root + "/data.old/energy.state", generation: 1,
                                                            savedAt: opened.store.lastSavedTotals().savedAt))
            try FileManager.default.removeItem(atPath: opened.root + "/data.old")
            #expect(opened.store.lastSavedTotals() == .gone(path: opened.stateFile, generation: 1))
            #expect(opened.store.lastSavedTotals().description
                == "no saved totals remain: the last state file written, \(opened.stateFile) (generation 1), no longer exists")
        }
    }

    @Test func anUnwritableDataDirectoryFailsTheSaveAndKeepsTheLastStateFile() async throws {
        try await Self.withOpenedStore { opened in
            // What a read-only directory does to a save, also for root (which ignores modes):
            // the temporary file cannot be created.
            try FileManager.default.createDirectory(atPath: opened.directory + "/energy.state.tmp", withIntermediateDirectories: false)
            #expect(throws: StorageError.self) { try opened.store.save(sampleState(step: 2)) }
            let saved = opened.store.lastSavedTotals()
            #expect(saved == .file(path: opened.stateFile, generation: 1, savedAt: saved.savedAt))
            #expect(saved.description.hasPrefix("the last saved totals are in \(opened.stateFile) (generation 1, saved 20"))
        }
    }

    @Test func aStoreThatNeverSavedSaysSo() async throws {
        try await NamedThread.run(name: "test-reclaim") {
            try withTemporaryDirectory { directory in
                try withStore(directory) { store in
                    _ = try store.load()
                    #expect(store.lastSavedTotals() == .none(dataDirectory: directory))
                }
                // A state loaded at startup counts as saved until a save replaces it.
                try withStore(directory) { store in try store.save(sampleState(step: 1)) }
                try withStore(directory) { store in
                    _ = try store.load()
                    #expect(store.lastSavedTotals().savedAt != nil)
                    #expect(store.lastSavedTotals() == .file(path: directory + "/energy.state", generation: 1,
                                                             savedAt: store.lastSavedTotals().savedAt))
                }
            }
        }
    }
}

extension SavedTotals {
    /// The save time of a `.file`.
    var savedAt: Date? {
        if case .file(_, _, let savedAt) = self { return savedAt }
        return nil
    }
}
