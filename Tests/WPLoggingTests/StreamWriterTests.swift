import Dispatch
import Foundation
import Synchronization
import Testing
import WPTestThreads
@testable import WPLogging

/// A pipe whose reader starts only when asked: until then the writer's thread blocks in
/// `write(2)` once the pipe's buffer is full, as with a log shipper that stopped reading.
private final class StalledPipe: @unchecked Sendable {
    // Safety: `readFD`/`writeFD` are set once in init; `received` is written by the reader
    // thread before it signals `done`, and read only after `done` was waited for.
    let readFD: Int32
    let writeFD: Int32
    private var received: [UInt8] = []
    private let done = DispatchSemaphore(value: 0)

    init() throws {
        var fds: [Int32] = [0, 0]
        guard pipe(&fds) == 0 else { throw POSIXError(.EMFILE) }
        readFD = fds[0]
        writeFD = fds[1]
        #if os(Linux)
        _ = fcntl(writeFD, 1031 /* F_SETPIPE_SZ */, 4096) // fill it sooner; the test holds at any size
        capacity = Int(fcntl(writeFD, 1032 /* F_GETPIPE_SZ */))
        #else
        capacity = 65_536
        #endif
    }

    /// The most bytes the pipe holds unread.
    let capacity: Int

    /// Starts reading until end of file on a thread of its own.
    func startReading() {
        Thread.detachNewThread { [self] in
            var buffer = [UInt8](repeating: 0, count: 65_536)
            while true {
                let count = buffer.withUnsafeMutableBytes { read(readFD, $0.baseAddress, $0.count) }
                if count < 0 && errno == EINTR { continue }
                if count <= 0 { break }
                received.append(contentsOf: buffer[0..<count])
            }
            done.signal()
        }
    }

    /// Closes the write end and returns everything read, or `nil` if the reader did not finish
    /// within 30 s.
    func finish() -> String? {
        close(writeFD)
        guard done.wait(timeout: .now() + 30) == .success else { return nil }
        close(readFD)
        return String(decoding: received, as: UTF8.self)
    }
}

/// Runs `body` on a thread of its own and waits at most 30 s for it: a call that blocks fails
/// the test instead of hanging it.
private func finishesWithoutBlocking(_ body: @escaping @Sendable () -> Void) -> Bool {
    let finished = DispatchSemaphore(value: 0)
    Thread.detachNewThread {
        body()
        finished.signal()
    }
    return finished.wait(timeout: .now() + 30) == .success
}

/// Writes numbered lines to `writer` until it accepted more bytes than `pipe` holds (so some
/// are waiting: the writer's thread is stuck in `write(2)` behind a reader that never reads)
/// and dropped one (its queue is full). Returns the numbers of the accepted lines, or `nil` if
/// a write blocked (the test then fails instead of hanging).
private func stall(_ writer: StreamWriter, _ pipe: StalledPipe) -> [Int]? {
    let accepted = Mutex<[Int]>([])
    let finished = finishesWithoutBlocking {
        var bytes = 0
        for index in 0..<1_000_000 {
            if bytes > pipe.capacity && writer.droppedWrites > 0 { break }
            let line = Array("record \(index) \(String(repeating: "x", count: 80))\n".utf8)
            if writer.write(line) {
                bytes += line.count
                accepted.withLock { $0.append(index) }
            }
        }
    }
    return finished ? accepted.withLock { $0 } : nil
}

@Suite(.ownThreads, .timeLimit(.minutes(3))) struct StreamWriterTests {
    @Test func writesNeverWaitForAReaderThatStoppedAndTheQueueIsBounded() throws {
        let pipe = try StalledPipe()
        let writer = StreamWriter(fileDescriptor: pipe.writeFD, name: "pipe", limit: 2048)
        let accepted = try #require(stall(writer, pipe), "a write waited for the reader")
        #expect(writer.droppedWrites > 0)
        #expect(writer.queuedBytes <= 2048)
        #expect(writer.flush(timeout: .milliseconds(20)) == false, "nothing reads the pipe, so the queue cannot drain")

        pipe.startReading()
        #expect(writer.flush(timeout: .seconds(60)))
        let lines = try #require(pipe.finish()).split(separator: "\n")
        #expect(lines.count == accepted.count, "every accepted write arrives, whole and once")
        #expect(zip(lines, accepted).allSatisfy { $0.hasPrefix("record \($1) ") }, "in the order written")
    }

    @Test func aSinkSaysHowManyRecordsItDroppedBeforeTheNextOneThatFits() throws {
        let pipe = try StalledPipe()
        let writer = StreamWriter(fileDescriptor: pipe.writeFD, name: "pipe", limit: 1024)
        let sink = StreamSink(writer: writer, encoder: JSONLogEncoder())
        _ = try #require(stall(writer, pipe), "a write waited for the reader")
        #expect(finishesWithoutBlocking {
            for index in 0..<1_000_000 where sink.droppedRecords < 5 { sink.write(.make(message: "record \(index)")) }
        })
        let dropped = sink.droppedRecords
        #expect(dropped == 5, "the queue stays full while the reader is stuck, so every record after it filled is counted")
        pipe.startReading()
        #expect(sink.flush(timeout: .seconds(60)))
        sink.write(.make(message: "after the reader came back"))
        #expect(sink.flush(timeout: .seconds(60)))
        #expect(sink.droppedRecords == 0)
        let lines = try #require(pipe.finish()).split(separator: "\n")
        try #require(lines.count >= 2)
        let notice = String(lines[lines.count - 2])
        #expect(notice.contains(#""level":"warn""#) && notice.contains(#""logger":"logging""#))
        #expect(notice.contains(#""dropped":\#(dropped)"#))
        #expect(lines.last?.contains("after the reader came back") == true)
    }

    @Test func closeWaitsForQueuedRecordsWhenTheReaderReads() throws {
        let pipe = try StalledPipe()
        pipe.startReading()
        let sink = StreamSink(writer: StreamWriter(fileDescriptor: pipe.writeFD, name: "pipe"), encoder: MessageOnlyEncoder())
        for index in 0..<500 { sink.write(.make(message: "line \(index)")) }
        sink.close()
        let text = try #require(pipe.finish())
        #expect(text == (0..<500).map { "line \($0)\n" }.joined())
    }

    @Test func theFactoryWritesStandardStreamsInTheBackground() throws {
        let sink = try #require(try LoggingConfiguration(output: .stderr).makeSink() as? StreamSink)
        #expect(sink.delivery == .background)
        #expect(StreamSink(fileDescriptor: 2, encoder: JSONLogEncoder()).delivery == .background,
                "a sink made by hand delivers in the background too, unless told otherwise")
    }

    /// The exit path's last resort writes what a pipe takes now, and nothing waits for a
    /// reader that stopped: a full pipe takes nothing and the call returns.
    @Test func theLastResortWritesWhatThePipeTakesAndNeverWaits() throws {
        let pipe = try StalledPipe()
        let line = Array("config: exit 78 because ...\n".utf8)
        #expect(FileIO.writeWithoutWaiting(pipe.writeFD, line) == line.count)
        let fd = pipe.writeFD
        #expect(finishesWithoutBlocking {
            let chunk = [UInt8](repeating: 0x2E, count: 512)
            let flags = fcntl(fd, F_GETFL)
            _ = fcntl(fd, F_SETFL, flags | O_NONBLOCK)
            while write(fd, chunk, chunk.count) > 0 {}
            _ = fcntl(fd, F_SETFL, flags)
        }, "the pipe filled")
        let wrote = Mutex(-1)
        #expect(finishesWithoutBlocking { wrote.withLock { $0 = FileIO.writeWithoutWaiting(fd, line) } }, "a full pipe never blocks the exit")
        #expect(wrote.withLock { $0 } == 0)
        pipe.startReading()
        let text = try #require(pipe.finish())
        #expect(text.hasPrefix("config: exit 78 because ...\n"), "the line written while the pipe had room")
        #expect(text.utf8.count % 512 == line.count && text.utf8.count > pipe.capacity / 2, "the line, the filling, nothing of the refused write")
    }
}

/// Async code closes and flushes a sink on a thread of its own: a sink's wait for its reader
/// never holds one of Swift's cooperative threads.
@Suite(.ownThreads, .timeLimit(.minutes(3))) struct OffThePoolTests {
    private final class ThreadRecorder: LogSink {
        let names = Mutex<[String]>([])
        func write(_ record: LogRecord) {}
        func close() { names.withLock { $0.append(Self.currentThreadName()) } }
        func flush(timeout: Duration) -> Bool {
            names.withLock { $0.append(Self.currentThreadName()) }
            return true
        }

        /// The calling thread's name, as the kernel has it.
        static func currentThreadName() -> String {
            ((try? String(contentsOfFile: "/proc/thread-self/comm", encoding: .utf8)) ?? "")
                .trimmingCharacters(in: .whitespacesAndNewlines)
        }
    }

    @Test func closeAndFlushRunOnThreadsOfTheirOwn() async {
        let sink = ThreadRecorder()
        #expect(await sink.flushOffThePool(timeout: .seconds(1)))
        await sink.closeOffThePool()
        #expect(sink.names.withLock { $0 } == ["log-flush", "log-close"])
    }
}
