import Testing
import WPTestThreads
@testable import WPLogging
import WPRuntime
import WPTestSupport

/// The background writer of ``RotatingFileSink``: a log call never waits for the disk, the
/// queue is bounded, and a thread that cannot be started loses lines only counted and reported.
@Suite(.ownThreads, .timeLimit(.minutes(3))) struct RotatingFileSinkWriterTests {
    let clock = LoggingWallClock()

    /// Starts threads that wait for ``open()`` before they run (a stalled disk), or fails.
    final class Starter: Sendable {
        private let lock = WPConditionLock((open: true, failing: false))

        func hold() { lock.withLock { $0.open = false } }
        func fail(_ failing: Bool) { lock.withLock { $0.failing = failing } }
        func open() {
            lock.withLock { $0.open = true }
            lock.broadcast()
        }

        var start: WorkerQueue.Starter {
            { name, body throws(ThreadStartError) in
                if self.lock.withLock({ $0.failing }) { throw ThreadStartError(name: name, code: 11) }
                try NamedThread.start(name: name) {
                    self.lock.wait(until: Deadline(after: .seconds(60)), for: { $0.open }) { _, _ in }
                    body()
                }
            }
        }
    }

    func makeSink(_ directory: String, bufferLimitBytes: Int, starter: Starter,
                  failures: LoggingFailureRecorder) throws -> RotatingFileSink {
        var configuration = RotatingFileSink.Configuration(path: directory + "/app.log", maxSizeBytes: 1 << 20,
                                                           maxBackups: 0, maxAge: 0, compress: false)
        configuration.bufferLimitBytes = bufferLimitBytes
        return try RotatingFileSink(configuration: configuration, encoder: MessageOnlyEncoder(), now: clock.now,
                                    reportFailure: failures.record, starter: starter.start)
    }

    @Test func aStalledWriterNeverBlocksALogCallAndDropsBeyondTheBufferAreCountedAndReported() throws {
        try withLoggingTemporaryDirectory { dir in
            let starter = Starter()
            let failures = LoggingFailureRecorder()
            let sink = try makeSink(dir, bufferLimitBytes: 24, starter: starter, failures: failures)
            #expect(sink.waitForMaintenance(timeout: .seconds(60)))
            starter.hold()
            for index in 0..<5 { sink.write(.make(message: "line-0\(index)")) } // 8 bytes each
            #expect(!sink.flush(timeout: .milliseconds(20)))
            #expect(LoggingFiles.text(dir + "/app.log") == "")
            #expect(sink.droppedRecords == 2)
            #expect(failures.reports.count == 1)
            #expect(failures.reports.first?.contains("dropped") == true)
            starter.open()
            #expect(sink.flush(timeout: .seconds(60)))
            #expect(LoggingFiles.text(dir + "/app.log") == "line-00\nline-01\nline-02\n")
            #expect(sink.close(timeout: .seconds(60)))
        }
    }

    @Test func linesWithNoWriterThreadAreDroppedCountedAndReportedAndTheNextWriteTriesAgain() throws {
        try withLoggingTemporaryDirectory { dir in
            let starter = Starter()
            let failures = LoggingFailureRecorder()
            let sink = try makeSink(dir, bufferLimitBytes: 1 << 20, starter: starter, failures: failures)
            #expect(sink.waitForMaintenance(timeout: .seconds(60)))
            starter.fail(true)
            sink.write(.make(message: "lost"))
            #expect(sink.droppedRecords == 1)
            #expect(failures.reports.contains { $0.contains("cannot start the writer thread") })
            starter.fail(false)
            sink.write(.make(message: "kept"))
            #expect(sink.flush(timeout: .seconds(60)))
            #expect(LoggingFiles.text(dir + "/app.log") == "kept\n")
            #expect(sink.close(timeout: .seconds(60)))
        }
    }

    @Test func closeIsBoundedByItsDeadlineWhileTheWriterIsStalled() throws {
        try withLoggingTemporaryDirectory { dir in
            let starter = Starter()
            let sink = try makeSink(dir, bufferLimitBytes: 1 << 20, starter: starter, failures: LoggingFailureRecorder())
            #expect(sink.waitForMaintenance(timeout: .seconds(60)))
            starter.hold()
            sink.write(.make(message: "late"))
            #expect(!sink.close(timeout: .milliseconds(20)))
            sink.write(.make(message: "after close"))
            starter.open()
            #expect(sink.waitForMaintenance(timeout: .seconds(60)))
            #expect(LoggingFiles.text(dir + "/app.log") == "late\n")
        }
    }
}
