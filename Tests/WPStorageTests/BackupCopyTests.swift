import Foundation
import Synchronization
import Testing
import WPTestThreads
import WPLogging
@testable import WPStorage
import WPTestSupport
#if canImport(Glibc)
import Glibc
import WPWallClock
#endif

/// Data directories whose file system refuses hard links (vfat, exFAT, SMB, FUSE): the backup
/// generation is copied and flushed instead, and saves keep working.
@Suite(.ownThreads, .timeLimit(.minutes(3))) struct BackupCopyTests {
    private static func refusingLinks(_ code: Int32) -> FileSystem.Calls {
        FileSystem.Calls(link: { _, _ in code })
    }

    @Test(arguments: [EPERM, ENOTSUP, EXDEV, EMLINK])
    func refusedLinkFallsBackToACopy(code: Int32) throws {
        try withTemporaryDirectory { directory in
            let sink = InMemoryLogSink()
            let store = try FileEnergyStore(configuration: StorageConfiguration(dataDirectory: directory),
                                            logger: sink.logger(), wallClock: .system, calls: Self.refusingLinks(code))
            defer { store.close() }
            _ = try store.load()
            try store.save(sampleState(step: 1))
            try store.save(sampleState(step: 2))
            try store.save(sampleState(step: 3))
            #expect(store.statistics.saves == 3)
            #expect(store.statistics.failedSaves == 0)
            #expect(store.statistics.copiedBackups == 2)
            #expect(store.statistics.fsyncs == 3 * 2 + 2)
            let backup = try #require(contents(directory + "/energy.state.bak"))
            guard case .success(let previous) = StateFileFormat.decode(Array(backup)) else {
                Issue.record("backup is not a valid state file")
                return
            }
            #expect(previous.devices == sampleState(step: 2).devices)
            #expect(files(in: directory, prefix: "energy.state.bak.tmp").isEmpty)
            // The backup's mode is the configured one, as for the state file.
            let attributes = try FileManager.default.attributesOfItem(atPath: directory + "/energy.state.bak")
            #expect((attributes[.posixPermissions] as? Int) == 0o644)
            // Said once, not once per save.
            #expect(sink.records.filter { $0.message.contains("refuses hard links") }.count == 1)
        }
    }

    @Test func copiedBackupRestoresTotalsWhenTheStateFileIsDamaged() throws {
        try withTemporaryDirectory { directory in
            do {
                let store = try FileEnergyStore(configuration: StorageConfiguration(dataDirectory: directory),
                                                logger: .disabled, wallClock: .system, calls: Self.refusingLinks(EPERM))
                defer { store.close() }
                _ = try store.load()
                try store.save(sampleState(step: 1))
                try store.save(sampleState(step: 2))
            }
            try Data("garbage\n".utf8).write(to: URL(fileURLWithPath: directory + "/energy.state"))
            let loaded = try withStore(directory) { try $0.load() }
            #expect(loaded.source == .backup)
            #expect(loaded.state.devices == sampleState(step: 1).devices)
        }
    }

    @Test func firstSaveHasNothingToBackUp() throws {
        try withTemporaryDirectory { directory in
            let store = try FileEnergyStore(configuration: StorageConfiguration(dataDirectory: directory),
                                            logger: .disabled, wallClock: .system, calls: Self.refusingLinks(EPERM))
            defer { store.close() }
            _ = try store.load()
            try store.save(sampleState(step: 1))
            #expect(store.statistics.copiedBackups == 0)
            #expect(contents(directory + "/energy.state.bak") == nil)
        }
    }
}

/// A save stuck in the file system holds only the saves' own lock: the counters and `close()`
/// answer at once (shutdown closes the store even while the last save is stuck).
@Suite(.ownThreads, .timeLimit(.minutes(3))) struct StuckSaveTests {
    @Test func statisticsAndCloseDoNotWaitForASaveInProgress() throws {
        try withTemporaryDirectory { directory in
            let entered = DispatchSemaphore(value: 0)
            let release = DispatchSemaphore(value: 0)
            let stuck = Mutex(false)
            let calls = FileSystem.Calls(link: { existing, alias in
                if stuck.withLock({ $0 }) {
                    entered.signal()
                    release.wait()
                }
                return FileSystem.Calls.system.link(existing, alias)
            })
            let store = try FileEnergyStore(configuration: StorageConfiguration(dataDirectory: directory),
                                            logger: .disabled, wallClock: .system, calls: calls)
            _ = try store.load()
            try store.save(sampleState(step: 1))
            stuck.withLock { $0 = true } // the next save's backup link is stuck
            let saved = DispatchSemaphore(value: 0)
            Thread.detachNewThread {
                try? store.save(sampleState(step: 2))
                saved.signal()
            }
            try #require(entered.wait(timeout: .now() + 60) == .success, "the save never reached its backup link")
            // Read on a thread of its own: were they to wait for the stuck save, the bounded
            // wait fails the test instead of hanging it.
            let answered = DispatchSemaphore(value: 0)
            let seen = Mutex(0)
            Thread.detachNewThread {
                seen.withLock { $0 = store.statistics.saves }
                store.close()
                answered.signal()
            }
            let result = answered.wait(timeout: .now() + 60)
            release.signal()
            saved.wait()
            #expect(result == .success, "statistics or close waited for the stuck save")
            #expect(seen.withLock { $0 } == 1)
            #expect(throws: StorageError.self) { try store.save(sampleState(step: 3)) }
        }
    }
}
