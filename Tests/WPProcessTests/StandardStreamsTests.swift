#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Testing
import WPTestThreads
import WPLogging
import WPProcess
import WPRuntime

/// The flush before exit: bounded by its deadline when a reader stopped reading, complete once
/// it reads again.
@Suite(.ownThreads, .timeLimit(.minutes(3))) struct StandardStreamsTests {
    @Test func aFlushWithNothingQueuedReturnsAtOnce() {
        #expect(StandardStreams.flush(timeout: .seconds(60)))
    }

    /// A shared writer stuck behind a pipe nobody reads (as standard output into a stalled log
    /// shipper) makes the flush give up at its deadline, not wait for the reader.
    @Test func aReaderThatDoesNotReadDelaysTheFlushByItsDeadlineOnly() throws {
        var fds: [Int32] = [-1, -1]
        try #require(pipe(&fds) == 0)
        let (readFD, writeFD) = (fds[0], fds[1])
        #if os(Linux)
        _ = fcntl(writeFD, 1031 /* F_SETPIPE_SZ */, 4096)
        #endif
        let writer = StreamWriter.shared(fileDescriptor: writeFD, name: "stalled pipe")
        let bytes = 1 << 18   // more than any pipe buffer: the writer's thread blocks in write(2)
        #expect(writer.write([UInt8](repeating: 0x2e, count: bytes)))

        let started = ContinuousClock.now
        #expect(!StandardStreams.flush(timeout: .milliseconds(200)), "the reader never read")
        #expect(started.duration(to: .now) < .seconds(20), "the deadline bounds the wait")

        let drained = WPConditionLock(0)
        try NamedThread.start(name: "test-reader") {
            var buffer = [UInt8](repeating: 0, count: 65_536)
            var total = 0
            while true {
                let count = buffer.withUnsafeMutableBytes { read(readFD, $0.baseAddress, $0.count) }
                if count < 0 && errno == EINTR { continue }
                if count <= 0 { break }
                total += count
            }
            drained.withLock { $0 = total }
            drained.signal()
        }
        #expect(StandardStreams.flush(timeout: .seconds(60)), "everything is written once the reader reads")
        close(writeFD)
        let total = drained.wait(until: Deadline(after: .seconds(60)), for: { $0 > 0 }) { total, _ in total }
        close(readFD)
        #expect(total == bytes)
    }
}
