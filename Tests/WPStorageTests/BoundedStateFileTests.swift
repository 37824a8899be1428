import Foundation
import Testing
import WPTestThreads
import WPLogging
import WPStorage
import WPTestSupport
#if canImport(Glibc)
import Glibc
#endif

/// The energy state file is read 64 KiB at a time up to 256 MiB: a larger one (a 2 GB sparse
/// file) is refused without being read whole, moved aside as damaged and the backup used; a
/// FIFO in its place is refused without blocking.
@Suite(.ownThreads, .timeLimit(.minutes(3))) struct BoundedStateFileTests {
    private func saveTwoGenerations(_ directory: String) throws {
        try withStore(directory) { store in
            _ = try store.load()
            try store.save(sampleState(step: 1))
            try store.save(sampleState(step: 2))
        }
    }

    @Test func aSparse2GBStateFileIsRefusedNamingTheLimitAndTheBackupIsUsed() throws {
        try withTemporaryDirectory { directory in
            try saveTwoGenerations(directory)
            let state = directory + "/energy.state"
            #expect(truncate(state, off_t(2 << 30)) == 0)
            let sink = InMemoryLogSink()
            try withStore(directory, logger: sink.logger()) { store in
                let loaded = try store.load()
                #expect(loaded.source == .backup)
                #expect(loaded.state.devices == sampleState(step: 1).devices)
                #expect(loaded.quarantined.count == 1)
            }
            let logged = sink.records.map { "\($0.message) \($0.fields)" }.joined(separator: "\n")
            #expect(logged.contains("larger than 268435456 bytes"))
            #expect(logged.contains(state))
        }
    }

    @Test func aFIFOInPlaceOfTheStateFileIsNamedAndDoesNotBlock() throws {
        try withTemporaryDirectory { directory in
            try saveTwoGenerations(directory)
            let state = directory + "/energy.state"
            #expect(unlink(state) == 0)
            #expect(mkfifo(state, 0o600) == 0)
            let sink = InMemoryLogSink()
            try withStore(directory, logger: sink.logger()) { store in
                let loaded = try store.load()
                #expect(loaded.source == .backup)
            }
            let logged = sink.records.map { "\($0.message) \($0.fields)" }.joined(separator: "\n")
            #expect(logged.contains("is a FIFO, not a regular file"))
        }
    }
}
