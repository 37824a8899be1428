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

@Suite(.ownThreads, .timeLimit(.minutes(3))) struct FileEnergyStoreTests {
    @Test func savesAndLoadsExactTotalsWithTwoFsyncsPerSave() throws {
        try withTemporaryDirectory { directory in
            let state = sampleState(step: 1.1, count: 50)
            try withStore(directory) { store in
                #expect(try store.load().source == .fresh)
                try store.save(state)
                try store.save(state)
                #expect(store.statistics.saves == 2)
                #expect(store.statistics.fsyncs == 4)
            }
            try withStore(directory) { store in
                let loaded = try store.load()
                #expect(loaded.source == .primary)
                #expect(loaded.state.devices == state.devices)
                #expect(loaded.state.generation == 2)
            }
        }
    }

    @Test func backupHoldsThePreviousGeneration() throws {
        try withTemporaryDirectory { directory in
            try withStore(directory) { store in
                _ = try store.load()
                try store.save(sampleState(step: 1))
                try store.save(sampleState(step: 2))
                try store.save(sampleState(step: 3))
            }
            try FileManager.default.removeItem(atPath: directory + "/energy.state")
            try withStore(directory) { store in
                let loaded = try store.load()
                #expect(loaded.source == .backup)
                #expect(loaded.state.devices == sampleState(step: 2).devices)
                #expect(loaded.state.generation == 2)
            }
        }
    }

    @Test func createsMissingDataDirectoryAndAppliesFilePermissions() throws {
        try withTemporaryDirectory { root in
            let directory = root + "/nested/data/"
            let store = try FileEnergyStore(configuration: StorageConfiguration(dataDirectory: directory,
                                                                                filePermissions: 0o600),
                                            logger: .disabled)
            defer { store.close() }
            _ = try store.load()
            try store.save(sampleState(step: 1))
            try store.save(sampleState(step: 2))
            let directoryMode = try FileManager.default.attributesOfItem(atPath: root + "/nested/data")[.posixPermissions] as? Int
            #expect(directoryMode == 0o755)
            for name in ["energy.state", "energy.state.bak"] {
                let mode = try FileManager.default.attributesOfItem(atPath: root + "/nested/data/" + name)[.posixPermissions] as? Int
                #expect(mode == 0o600, "\(name)")
            }
        }
    }

    @Test func dataDirectoryThatIsAFileIsAClearError() throws {
        try withTemporaryDirectory { root in
            let path = root + "/plain-file"
            _ = FileManager.default.createFile(atPath: path, contents: Data("x".utf8))
            let error = #expect(throws: StorageError.self) {
                _ = try FileEnergyStore(configuration: StorageConfiguration(dataDirectory: path), logger: .disabled)
            }
            #expect(error?.description.contains(path) == true)
            #expect(error?.description.contains("Not a directory") == true)
        }
    }

    @Test func closedStoreRefusesToSave() throws {
        try withTemporaryDirectory { directory in
            let store = try FileEnergyStore(configuration: StorageConfiguration(dataDirectory: directory), logger: .disabled)
            store.close()
            #expect(throws: StorageError.closed(dataDirectory: directory)) { try store.save(EnergyState()) }
        }
    }

    @Test func secondStoreOnTheSameDirectoryIsRefusedNamingTheOwner() throws {
        try withTemporaryDirectory { directory in
            try withStore(directory) { _ in
                #expect(throws: StorageError.locked(lockFile: directory + "/wpexporter.lock", ownerPID: getpid())) {
                    _ = try FileEnergyStore(configuration: StorageConfiguration(dataDirectory: directory), logger: .disabled)
                }
                // Named as this process, never as "another process" with its own pid.
                let said = StorageError.locked(lockFile: directory + "/wpexporter.lock", ownerPID: getpid()).description
                #expect(said.contains("already open in this process (pid \(getpid()))"), "\(said)")
                #expect(!said.contains("another process"), "\(said)")
            }
            // Released on close: a new store can open.
            try withStore(directory) { store in
                let source = try store.load().source
                #expect(source == .fresh)
            }
        }
    }

    @Test func lockMessageNamesTheOtherProcess() {
        let error = StorageError.locked(lockFile: "/data/wpexporter.lock", ownerPID: 4242)
        #expect(error.description.contains("pid 4242"))
        #expect(error.description.contains("/data/wpexporter.lock"))
    }
}

@Suite(.ownThreads, .timeLimit(.minutes(3))) struct FileEnergyStoreValidationTests {
    @Test func refusesToWriteATotalItCouldNotReadBack() throws {
        try withTemporaryDirectory { directory in
            try withStore(directory) { store in
                _ = try store.load()
                try store.save(sampleState(step: 1))
                for bad in [Double.infinity, .nan, -1] {
                    let error = #expect(throws: StorageError.self) {
                        try store.save(EnergyState(devices: ["ups-x": StoredDeviceEnergy(joules: bad)]))
                    }
                    #expect(error?.description.contains("ups-x") == true)
                }
                let devices = try store.load().state.devices
                #expect(devices == sampleState(step: 1).devices)
            }
        }
    }

    @Test func absurdWallClockDoesNotCrashSaves() throws {
        try withTemporaryDirectory { directory in
            try withStore(directory, wallClock: .fixed(Date(timeIntervalSince1970: 1e300))) { store in
                _ = try store.load()
                try store.save(sampleState(step: 1))
                let loaded = try store.load()
                #expect(loaded.state.savedAt == nil)
            }
        }
    }
}
