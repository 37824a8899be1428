#if canImport(Glibc)
import Glibc
#endif
import Testing
import WPPOSIX
import WPTestThreads

/// fsync, rename, a directory's entries flushed and the one read call, written once for the
/// state file, the data directory's files and the rotated logs.
@Suite(.ownThreads, .timeLimit(.minutes(2))) struct POSIXDurabilityTests {
    private func contents(_ path: String) -> [UInt8]? {
        if case .success(let bytes) = POSIXFile.readRegularFile(path, limit: 1024) { return bytes }
        return nil
    }

    @Test func aRenameReplacesTheTargetAndTheDirectoryIsFlushed() throws {
        let root = try scratchDirectory("sync")
        defer { for path in ["/new", "/old", ""] { _ = remove(root + path) } }
        for (name, text) in [("new", "fresh"), ("old", "stale")] {
            let fd = open(root + "/" + name, O_CREAT | O_WRONLY | O_CLOEXEC, 0o600)
            try #require(fd >= 0)
            #expect(POSIXFile.writeAll(fd, Array(text.utf8)) == nil)
            #expect(POSIXFile.sync(fd) == nil)
            close(fd)
        }
        #expect(POSIXFile.rename(root + "/new", to: root + "/old") == nil)
        #expect(contents(root + "/old") == Array("fresh".utf8))
        #expect(!POSIXFile.exists(root + "/new"))
        #expect(POSIXFile.syncDirectory(root) == nil)
    }

    @Test func failuresAreNamedWithTheirErrno() throws {
        let root = try scratchDirectory("sync")
        defer { for path in ["/file", ""] { _ = remove(root + path) } }
        #expect(POSIXFile.rename(root + "/missing", to: root + "/other") == ENOENT)
        #expect(POSIXFile.syncDirectory(root + "/missing") == .init(operation: "open directory", errno: ENOENT))
        close(open(root + "/file", O_CREAT | O_WRONLY | O_CLOEXEC, 0o600))
        #expect(POSIXFile.syncDirectory(root + "/file") == .init(operation: "open directory", errno: ENOTDIR))
        #expect(POSIXFile.sync(-1) == EBADF)
    }

    @Test func aChunkIsReadIntoTheBufferUpToTheCountAsked() throws {
        var ends: [Int32] = [0, 0]
        try #require(pipe(&ends) == 0)
        defer { close(ends[0]) }
        #expect(POSIXFile.writeAll(ends[1], Array("abcdef".utf8)) == nil)
        close(ends[1])
        var buffer = [UInt8](repeating: 0, count: 4)
        #expect(POSIXFile.readChunk(ends[0], into: &buffer, count: 2) == .read(2))
        #expect(buffer == Array("ab".utf8) + [0, 0])
        #expect(POSIXFile.readChunk(ends[0], into: &buffer, count: 99) == .read(4), "never past the buffer")
        #expect(buffer == Array("cdef".utf8))
        #expect(POSIXFile.readChunk(ends[0], into: &buffer) == .read(0), "the end of the file")
        #expect(POSIXFile.readChunk(-1, into: &buffer) == .failed(EBADF))
    }
}
