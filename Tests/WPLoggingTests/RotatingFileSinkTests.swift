import Foundation
import Testing
import WPTestThreads
import WPLogging
import WPTestSupport

@Suite(.ownThreads, .timeLimit(.minutes(3))) struct RotatingFileSinkTests {
    let clock = LoggingWallClock()
    /// 2026-11-22T02:37:19.123Z as used in rotated file names.
    let stamp = "2026-11-22T02-37-19.123"

    func makeSink(_ directory: String, maxSizeBytes: Int = 20, maxBackups: Int = 0, maxAge: TimeInterval = 0,
                  compress: Bool = false, failures: LoggingFailureRecorder = LoggingFailureRecorder()) throws -> RotatingFileSink {
        try RotatingFileSink(configuration: .init(path: directory + "/app.log", maxSizeBytes: maxSizeBytes,
                                                  maxBackups: maxBackups, maxAge: maxAge, compress: compress),
                             encoder: MessageOnlyEncoder(), now: clock.now, reportFailure: failures.record)
    }

    func write(_ sink: RotatingFileSink, _ range: Range<Int>, advancing seconds: TimeInterval = 0) {
        for index in range {
            sink.write(.make(message: String(format: "line-%02d", index)))
            clock.advance(by: seconds)
        }
    }

    @Test func rotatesBeforeAWriteWouldExceedTheMaximumSize() throws {
        try withLoggingTemporaryDirectory { dir in
            let sink = try makeSink(dir)
            write(sink, 0..<7)
            sink.close()
            #expect(LoggingFiles.names(in: dir) == [
                "app-\(stamp)-1.log", "app-\(stamp)-2.log", "app-\(stamp).log", "app.log",
            ])
            #expect(LoggingFiles.text(dir + "/app-\(stamp).log") == "line-00\nline-01\n")
            #expect(LoggingFiles.text(dir + "/app-\(stamp)-1.log") == "line-02\nline-03\n")
            #expect(LoggingFiles.text(dir + "/app-\(stamp)-2.log") == "line-04\nline-05\n")
            #expect(LoggingFiles.text(dir + "/app.log") == "line-06\n")
        }
    }

    @Test func aFileMayReachExactlyTheMaximumSize() throws {
        try withLoggingTemporaryDirectory { dir in
            let sink = try makeSink(dir, maxSizeBytes: 16)
            write(sink, 0..<2)
            #expect(sink.flush(timeout: .seconds(60)))
            #expect(sink.currentSize == 16)
            write(sink, 2..<3)
            sink.close()
            #expect(LoggingFiles.text(dir + "/app-\(stamp).log") == "line-00\nline-01\n")
            #expect(LoggingFiles.text(dir + "/app.log") == "line-02\n")
        }
    }

    @Test func keepsOnlyTheNewestBackups() throws {
        try withLoggingTemporaryDirectory { dir in
            let sink = try makeSink(dir, maxBackups: 2)
            write(sink, 0..<10, advancing: 1)
            sink.waitForMaintenance()
            #expect(LoggingFiles.names(in: dir) == ["app-2026-11-22T02-37-25.123.log", "app-2026-11-22T02-37-27.123.log", "app.log"])
            #expect(LoggingFiles.text(dir + "/app-2026-11-22T02-37-25.123.log") == "line-04\nline-05\n")
            #expect(LoggingFiles.text(dir + "/app-2026-11-22T02-37-27.123.log") == "line-06\nline-07\n")
            #expect(LoggingFiles.text(dir + "/app.log") == "line-08\nline-09\n")
        }
    }

    @Test func backupsRotatedInTheSameMillisecondAreOrderedBySequence() throws {
        try withLoggingTemporaryDirectory { dir in
            let sink = try makeSink(dir, maxBackups: 1)
            write(sink, 0..<7)
            sink.waitForMaintenance()
            #expect(LoggingFiles.names(in: dir) == ["app-\(stamp)-2.log", "app.log"])
            #expect(LoggingFiles.text(dir + "/app-\(stamp)-2.log") == "line-04\nline-05\n")
        }
    }

    @Test func newBackupsSortNewestAcrossRestartsAndClockStepsBack() throws {
        try withLoggingTemporaryDirectory { dir in
            let first = try makeSink(dir, maxBackups: 1)
            write(first, 0..<3)
            first.close()
            #expect(LoggingFiles.names(in: dir) == ["app-\(stamp).log", "app.log"])

            let second = try makeSink(dir, maxBackups: 1)
            clock.advance(by: -3600)
            write(second, 3..<5)
            second.close()
            #expect(LoggingFiles.names(in: dir) == ["app-\(stamp)-1.log", "app.log"])
            #expect(LoggingFiles.text(dir + "/app-\(stamp)-1.log") == "line-02\nline-03\n")
            #expect(LoggingFiles.text(dir + "/app.log") == "line-04\n")
        }
    }

    @Test func deletesBackupsOlderThanMaxAgeByTheInjectedClock() throws {
        try withLoggingTemporaryDirectory { dir in
            let day: TimeInterval = 86_400
            let old = "app-2026-11-14T02-37-19.123.log"
            let young = "app-2026-11-16T02-37-19.123.log.gz"
            let unrelated = ["app.log.bak", "other-2020-01-01T00-00-00.000.log", "app-not-a-stamp.log"]
            for name in [old, young] + unrelated {
                _ = FileManager.default.createFile(atPath: dir + "/" + name, contents: Data("x\n".utf8))
            }
            let sink = try makeSink(dir, maxAge: 7 * day)
            sink.waitForMaintenance()
            #expect(LoggingFiles.names(in: dir) == (["app.log", young] + unrelated).sorted())

            clock.advance(by: 2 * day)
            write(sink, 0..<3)
            sink.waitForMaintenance()
            let rotated = "app-2026-11-24T02-37-19.123.log"
            #expect(LoggingFiles.names(in: dir) == (["app.log", rotated] + unrelated).sorted())
        }
    }

    @Test func gzipsRotatedFilesAndLeavesNoTemporaries() throws {
        try withLoggingTemporaryDirectory { dir in
            let sink = try makeSink(dir, compress: true)
            write(sink, 0..<5, advancing: 1)
            sink.waitForMaintenance()
            let first = "app-2026-11-22T02-37-21.123.log.gz"
            let second = "app-2026-11-22T02-37-23.123.log.gz"
            #expect(LoggingFiles.names(in: dir) == [first, second, "app.log"])
            #expect(try LoggingFiles.gunzip(dir + "/" + first) == "line-00\nline-01\n")
            #expect(try LoggingFiles.gunzip(dir + "/" + second) == "line-02\nline-03\n")
            #expect(LoggingFiles.text(dir + "/app.log") == "line-04\n")
        }
    }

    @Test func startupFinishesCompressionInterruptedByACrash() throws {
        try withLoggingTemporaryDirectory { dir in
            let leftover = "app-\(stamp).log"
            let halfDone = "app-\(stamp)-1.log"
            let fm = FileManager.default
            _ = fm.createFile(atPath: dir + "/" + leftover, contents: Data("left over\n".utf8))
            _ = fm.createFile(atPath: dir + "/" + leftover + ".gz.tmp", contents: Data("partial".utf8))
            _ = fm.createFile(atPath: dir + "/" + halfDone, contents: Data("done\n".utf8))
            try GzipFixture.write("done\n", to: dir + "/" + halfDone + ".gz")
            let sink = try makeSink(dir, compress: true)
            sink.waitForMaintenance()
            #expect(LoggingFiles.names(in: dir) == [halfDone + ".gz", leftover + ".gz", "app.log"])
            #expect(try LoggingFiles.gunzip(dir + "/" + leftover + ".gz") == "left over\n")
        }
    }

    @Test func appendsToAnExistingFileAndCountsItsSize() throws {
        try withLoggingTemporaryDirectory { dir in
            _ = FileManager.default.createFile(atPath: dir + "/app.log", contents: Data("previous run!!\n".utf8))
            let sink = try makeSink(dir)
            #expect(sink.currentSize == 15)
            write(sink, 0..<1)
            sink.close()
            #expect(LoggingFiles.text(dir + "/app-\(stamp).log") == "previous run!!\n")
            #expect(LoggingFiles.text(dir + "/app.log") == "line-00\n")
        }
    }

    @Test func aRecordLargerThanTheLimitIsWrittenWholeInItsOwnFile() throws {
        try withLoggingTemporaryDirectory { dir in
            let sink = try makeSink(dir, maxSizeBytes: 4)
            write(sink, 0..<2)
            sink.close()
            #expect(LoggingFiles.text(dir + "/app-\(stamp).log") == "line-00\n")
            #expect(LoggingFiles.text(dir + "/app.log") == "line-01\n")
        }
    }

    @Test func createsMissingDirectories() throws {
        try withLoggingTemporaryDirectory { dir in
            let sink = try RotatingFileSink(configuration: .init(path: dir + "/a/b/app.log"), encoder: MessageOnlyEncoder())
            sink.write(.make(message: "hello"))
            sink.close()
            #expect(LoggingFiles.text(dir + "/a/b/app.log") == "hello\n")
        }
    }

    @Test func anUncreatableDirectoryIsAClearError() throws {
        try withLoggingTemporaryDirectory { dir in
            _ = FileManager.default.createFile(atPath: dir + "/file.txt", contents: Data())
            let error = #expect(throws: LoggingError.self) {
                _ = try RotatingFileSink(configuration: .init(path: dir + "/file.txt/logs/app.log"), encoder: JSONLogEncoder())
            }
            #expect(error == .cannotCreateDirectory(path: dir + "/file.txt", errno: ENOTDIR, reason: "Not a directory"))
            #expect(error?.description == "cannot create log directory \(dir)/file.txt: Not a directory (errno \(ENOTDIR))")
        }
    }

    @Test func anUnopenableFileIsAClearError() throws {
        try withLoggingTemporaryDirectory { dir in
            try FileManager.default.createDirectory(atPath: dir + "/app.log", withIntermediateDirectories: false)
            let error = #expect(throws: LoggingError.self) {
                _ = try RotatingFileSink(configuration: .init(path: dir + "/app.log"), encoder: JSONLogEncoder())
            }
            #expect(error?.description == "cannot open log file \(dir)/app.log for appending: Is a directory (errno \(EISDIR))")
        }
    }

    @Test func ioFailuresAreDroppedAndReportedOncePerKind() throws {
        try withLoggingTemporaryDirectory { dir in
            let failures = LoggingFailureRecorder()
            let logDir = dir + "/logs"
            let sink = try RotatingFileSink(
                configuration: .init(path: logDir + "/app.log", maxSizeBytes: 20, maxBackups: 0, maxAge: 0, compress: false),
                encoder: MessageOnlyEncoder(), now: clock.now, reportFailure: failures.record)
            write(sink, 0..<2)
            try FileManager.default.removeItem(atPath: logDir)
            write(sink, 2..<8)
            sink.close()
            let reports = failures.reports
            #expect(reports.count == 2)
            #expect(reports.first { $0.contains("cannot rename \(logDir)/app.log") && $0.contains("No such file or directory") } != nil)
            #expect(reports.first { $0.contains("cannot open log file \(logDir)/app.log") } != nil)
        }
    }

    @Test func concurrentWritersWithBackgroundCompressionLoseNothing() async throws {
        try await withLoggingTemporaryDirectory { dir in
            let sink = try RotatingFileSink(
                configuration: .init(path: dir + "/app.log", maxSizeBytes: 2048, maxBackups: 0, maxAge: 0, compress: true),
                encoder: MessageOnlyEncoder(), now: clock.now)
            let tasks = 4, perTask = 300
            await withTaskGroup(of: Void.self) { group in
                for task in 0..<tasks {
                    group.addTask {
                        for index in 0..<perTask { sink.write(.make(message: "t\(task)-\(index)")) }
                    }
                }
            }
            sink.close()
            var lines: [Substring] = []
            for name in LoggingFiles.names(in: dir) {
                #expect(!name.hasSuffix(".tmp"))
                let text = name.hasSuffix(".gz") ? try LoggingFiles.gunzip(dir + "/" + name) : LoggingFiles.text(dir + "/" + name)
                #expect(name.hasSuffix(".gz") || name == "app.log")
                lines += text.split(separator: "\n")
            }
            #expect(lines.count == tasks * perTask)
            #expect(Set(lines).count == tasks * perTask)
        }
    }

    @Test func concurrentWritersOnlyProduceWholeLines() async throws {
        try await withLoggingTemporaryDirectory { dir in
            let sink = try RotatingFileSink(
                configuration: .init(path: dir + "/app.log", maxSizeBytes: 8192, maxBackups: 0, maxAge: 0, compress: false),
                encoder: JSONLogEncoder(), now: clock.now)
            let log = WPLogger(label: "load", sink: sink)
            let tasks = 8, perTask = 250
            await withTaskGroup(of: Void.self) { group in
                for task in 0..<tasks {
                    group.addTask {
                        for index in 0..<perTask {
                            log.info("task \(task) record \(index)", ["payload": .string(String(repeating: "x", count: index % 50))])
                        }
                    }
                }
            }
            sink.close()
            var messages: Set<String> = []
            for name in LoggingFiles.names(in: dir) {
                let text = LoggingFiles.text(dir + "/" + name)
                #expect(text.utf8.count <= 8192)
                #expect(text.hasSuffix("\n"))
                for line in text.split(separator: "\n") {
                    let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
                    let message = try #require(object?["message"] as? String)
                    messages.insert(message)
                }
            }
            #expect(messages.count == tasks * perTask)
            #expect(LoggingFiles.names(in: dir).count > 2)
        }
    }
}
