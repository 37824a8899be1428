import Foundation
import Testing
import WPTestThreads
import WPLogging
import WPStorage
import WPTestSupport
#if canImport(Glibc)
import Glibc
import WPWallClock
#endif

/// Damaged storage: the totals survive (from the backup) and the evidence is kept.
@Suite(.ownThreads, .timeLimit(.minutes(3))) struct RecoveryTests {
    static let fixedNow = WallClock.fixed(Date(timeIntervalSince1970: 1_763_779_200))  // 2025-11-22 02:40:00 UTC

    /// Saves generations 1 (step 1) and 2 (step 2), then applies `damage` to the current file.
    private func prepare(_ directory: String, damage: (String) throws -> Void) throws {
        try withStore(directory) { store in
            _ = try store.load()
            try store.save(sampleState(step: 1))
            try store.save(sampleState(step: 2))
        }
        try damage(directory + "/energy.state")
    }

    private func expectBackupUsed(_ directory: String, damaged original: Data?) throws {
        let sink = InMemoryLogSink()
        try withStore(directory, logger: sink.logger(), wallClock: Self.fixedNow) { store in
            let loaded = try store.load()
            #expect(loaded.source == .backup)
            #expect(loaded.state.devices == sampleState(step: 1).devices)
            #expect(!loaded.stateWasReset)
            let aside = directory + "/energy.state.corrupt-20251122T024000Z"
            #expect(loaded.quarantined == [aside])
            #expect(contents(aside) == original, "the damaged file is kept byte for byte")
            #expect(sink.records.contains { $0.level == .error && $0.message.contains("damaged") })
            // Saving afterwards never touches the kept file.
            try store.save(sampleState(step: 3))
            #expect(contents(aside) == original)
        }
        try withStore(directory) { store in
            let loadedDevices = try store.load().state.devices
            #expect(loadedDevices == sampleState(step: 3).devices)
        }
    }

    @Test func corruptFileFallsBackToBackup() throws {
        try withTemporaryDirectory { directory in
            var original: Data?
            try prepare(directory) { path in
                original = Data("{ this is not a state file }\n".utf8)
                try #require(original).write(to: URL(fileURLWithPath: path))
            }
            try expectBackupUsed(directory, damaged: original)
        }
    }

    @Test func truncatedFileFallsBackToBackup() throws {
        try withTemporaryDirectory { directory in
            var original: Data?
            try prepare(directory) { path in
                let full = try #require(contents(path))
                original = full.prefix(full.count / 2)
                try #require(original).write(to: URL(fileURLWithPath: path))
            }
            try expectBackupUsed(directory, damaged: original)
        }
    }

    @Test func badChecksumFallsBackToBackup() throws {
        try withTemporaryDirectory { directory in
            var original: Data?
            try prepare(directory) { path in
                let data = try #require(contents(path))
                var text = try #require(String(data: data, encoding: .utf8))
                // Change one total but keep the file well-formed: only the checksum can tell.
                text = text.replacingOccurrences(of: "d 4002.0 1 ups-1", with: "d 9002.0 1 ups-1")
                original = Data(text.utf8)
                try #require(original).write(to: URL(fileURLWithPath: path))
            }
            try expectBackupUsed(directory, damaged: original)
        }
    }

    @Test func emptyFileFallsBackToBackup() throws {
        try withTemporaryDirectory { directory in
            try prepare(directory) { path in try Data().write(to: URL(fileURLWithPath: path)) }
            try expectBackupUsed(directory, damaged: Data())
        }
    }

    @Test func damagedFileWithoutBackupResetsKeepsEvidenceAndFlags() throws {
        try withTemporaryDirectory { directory in
            let damaged = Data("wpexporter-energy-state v1\ngeneration 9\n".utf8)
            try prepare(directory) { path in
                try FileManager.default.removeItem(atPath: path + ".bak")
                try damaged.write(to: URL(fileURLWithPath: path))
            }
            let sink = InMemoryLogSink()
            try withStore(directory, logger: sink.logger(), wallClock: Self.fixedNow) { store in
                let loaded = try store.load()
                #expect(loaded.source == .reset)
                #expect(loaded.stateWasReset)
                #expect(loaded.state.devices.isEmpty)
                #expect(sink.records.contains { $0.level == .error && $0.message.contains("restart from zero") })
                try store.save(sampleState(step: 5))
                try store.save(sampleState(step: 6))
            }
            #expect(files(in: directory, prefix: "energy.state.corrupt-") == ["energy.state.corrupt-20251122T024000Z"])
            #expect(contents(directory + "/energy.state.corrupt-20251122T024000Z") == damaged)
        }
    }

    @Test func bothFilesDamagedResetsAndKeepsBoth() throws {
        try withTemporaryDirectory { directory in
            try prepare(directory) { path in
                try Data("garbage one\n".utf8).write(to: URL(fileURLWithPath: path))
                try Data("garbage two\n".utf8).write(to: URL(fileURLWithPath: path + ".bak"))
            }
            try withStore(directory, wallClock: Self.fixedNow) { store in
                let loaded = try store.load()
                #expect(loaded.source == .reset)
                #expect(loaded.quarantined.count == 2)
                try store.save(sampleState(step: 7))
                try store.save(sampleState(step: 8))
            }
            #expect(contents(directory + "/energy.state.corrupt-20251122T024000Z") == Data("garbage one\n".utf8))
            #expect(contents(directory + "/energy.state.bak.corrupt-20251122T024000Z") == Data("garbage two\n".utf8))
        }
    }

    @Test func repeatedQuarantinesNeverOverwriteEachOther() throws {
        try withTemporaryDirectory { directory in
            for round in 1...3 {
                try Data("bad \(round)\n".utf8).write(to: URL(fileURLWithPath: directory + "/energy.state"))
                try withStore(directory, wallClock: Self.fixedNow) { store in _ = try store.load() }
            }
            let kept = files(in: directory, prefix: "energy.state.corrupt-")
            #expect(kept.count == 3)
            #expect(Set(kept.compactMap { contents(directory + "/" + $0) }).count == 3)
        }
    }

    /// Tests run as root, which bypasses file permission bits, so "cannot read" is simulated by
    /// putting a directory where the state file should be: `read` fails (EISDIR) exactly like
    /// an unreadable file would. The unreadable entry is moved aside and the backup is used.
    @Test func unreadableStateFileFallsBackToBackup() throws {
        try withTemporaryDirectory { directory in
            try prepare(directory) { path in
                try FileManager.default.removeItem(atPath: path)
                try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: false)
            }
            try withStore(directory, wallClock: Self.fixedNow) { store in
                let loaded = try store.load()
                #expect(loaded.source == .backup)
                #expect(loaded.state.devices == sampleState(step: 1).devices)
                try store.save(sampleState(step: 4))
            }
            var isDirectory: ObjCBool = false
            #expect(FileManager.default.fileExists(atPath: directory + "/energy.state.corrupt-20251122T024000Z",
                                                   isDirectory: &isDirectory) && isDirectory.boolValue)
        }
    }

    /// A save that cannot write (simulated with a directory in the way of the temp file, since
    /// root ignores permission bits) throws a clear error and leaves the stored totals intact;
    /// once the obstacle is gone the next save succeeds.
    @Test func unwritableDirectoryKeepsPreviousTotals() throws {
        try withTemporaryDirectory { directory in
            try withStore(directory) { store in
                _ = try store.load()
                try store.save(sampleState(step: 1))
                let obstacle = directory + "/energy.state.tmp"
                try FileManager.default.createDirectory(atPath: obstacle, withIntermediateDirectories: false)
                let error = #expect(throws: StorageError.self) { try store.save(sampleState(step: 2)) }
                #expect(error?.description.contains(obstacle) == true)
                #expect(store.statistics.failedSaves == 1)
                try FileManager.default.removeItem(atPath: obstacle)
            }
            try withStore(directory) { store in
                let loadedDevices = try store.load().state.devices
                #expect(loadedDevices == sampleState(step: 1).devices)
                try store.save(sampleState(step: 3))
                let afterSave = try store.load().state.devices
                #expect(afterSave == sampleState(step: 3).devices)
            }
        }
    }

    /// The real permission check, where it can be observed (not as root).
    @Test(.enabled(if: geteuid() != 0, "root bypasses permission bits"))
    func readOnlyDirectoryRefusesSaveWithPermissionDenied() throws {
        try withTemporaryDirectory { directory in
            try withStore(directory) { store in
                _ = try store.load()
                try store.save(sampleState(step: 1))
                try FileManager.default.setAttributes([.posixPermissions: 0o500], ofItemAtPath: directory)
                defer { try? FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: directory) }
                let error = #expect(throws: StorageError.self) { try store.save(sampleState(step: 2)) }
                #expect(error?.description.contains("Permission denied") == true)
            }
            try withStore(directory) { store in
                let loadedDevices = try store.load().state.devices
                #expect(loadedDevices == sampleState(step: 1).devices)
            }
        }
    }
}
