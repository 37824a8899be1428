#if canImport(Glibc)
import Glibc
#endif
import Testing
@testable import WPPOSIX
import WPTestThreads

/// The one read and write loop over a descriptor: whole writes, reads bounded by a limit that
/// say when the file goes on.
@Suite(.ownThreads, .timeLimit(.minutes(2))) struct POSIXFileTests {
    private func pipePair() throws -> (read: Int32, write: Int32) {
        var fds: [Int32] = [0, 0]
        try #require(pipe(&fds) == 0)
        return (fds[0], fds[1])
    }

    @Test func whatIsWrittenIsReadBackWithinTheLimit() throws {
        let (reader, writer) = try pipePair()
        defer { close(reader) }
        let bytes = (0..<50_000).map { UInt8(truncatingIfNeeded: $0) }
        #expect(POSIXFile.writeAll(writer, bytes) == nil)
        close(writer)
        #expect(POSIXFile.read(reader, limit: 50_000) == .bytes(bytes))
    }

    @Test func aLongerFileIsTruncatedAtTheLimitAndSaysSo() throws {
        let (reader, writer) = try pipePair()
        defer { close(reader) }
        #expect(POSIXFile.writeAll(writer, Array("0123456789".utf8)) == nil)
        close(writer)
        #expect(POSIXFile.read(reader, limit: 4) == .truncated(Array("0123".utf8)))
    }

    /// A descriptor that is no open file. (Not one just closed: the tests of the process run
    /// at once, and another may be given that number meanwhile, and be written into.)
    @Test func failuresAreTheirErrno() throws {
        #expect(POSIXFile.read(-1, limit: 10) == .failed(EBADF))
        #expect(POSIXFile.writeAll(-1, [1]) == EBADF)
    }
}
