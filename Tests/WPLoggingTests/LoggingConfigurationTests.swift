import Foundation
import Testing
import WPTestThreads
import WPLogging
import WPTestSupport

@Suite(.ownThreads, .timeLimit(.minutes(3))) struct LoggingConfigurationTests {
    @Test func defaultsMatchTheExporterContract() {
        let configuration = LoggingConfiguration()
        #expect(configuration.level == .info)
        #expect(configuration.format == .json)
        #expect(configuration.output == .stdout)
        #expect(configuration.filePath == "./logs/wpexporter.log")
        #expect(configuration.maxSizeMB == 100)
        #expect(configuration.maxAgeDays == 7)
        #expect(configuration.maxBackups == 3)
        #expect(configuration.compress)
        #expect(!configuration.enableCaller)
        #expect(!configuration.enableStacktrace)
        #expect(configuration.callerPolicy == .never)
        #expect(configuration.rotation == RotatingFileSink.Configuration(
            path: "./logs/wpexporter.log", maxSizeBytes: 100 << 20, maxBackups: 3, maxAge: 7 * 86_400, compress: true))
        #expect(LoggingConfiguration.Format.allCases.map(\.rawValue) == ["json", "console"])
        #expect(LoggingConfiguration.Output.allCases.map(\.rawValue) == ["stdout", "stderr", "file", "both"])
    }

    @Test func callerPolicyFollowsCallerAndStacktraceSettings() {
        #expect(LoggingConfiguration(enableCaller: true).callerPolicy == .always)
        #expect(LoggingConfiguration(enableCaller: true, enableStacktrace: true).callerPolicy == .always)
        #expect(LoggingConfiguration(enableStacktrace: true).callerPolicy == .errorsOnly)
    }

    @Test func outOfRangeFileSettingsAreAllReportedByKey() {
        let bad = LoggingConfiguration(output: .file, filePath: "", maxSizeMB: 0, maxAgeDays: -1, maxBackups: -2)
        #expect(bad.problems().map(\.description) == [
            "invalid logging configuration: file_path: must not be empty",
            "invalid logging configuration: max_size: must be at least 1 (MB), got 0",
            "invalid logging configuration: max_age: must be 0 (keep) or more days, got -1",
            "invalid logging configuration: max_backups: must be 0 (keep all) or more, got -2",
        ])
        #expect(throws: LoggingError.invalidConfiguration(key: "file_path", message: "must not be empty")) {
            _ = try bad.makeSink()
        }
        var stdoutOnly = bad
        stdoutOnly.output = .stdout
        #expect(stdoutOnly.problems().isEmpty)
    }

    @Test func streamOutputsUseTheRightDescriptorAndColoursOnlyOnATerminal() throws {
        let terminal = LoggingEnvironment(isTerminal: { $0 == 1 })
        let console = LoggingConfiguration(format: .console)
        let stdout = try #require(try console.makeSink(environment: terminal) as? StreamSink)
        #expect(stdout.fileDescriptor == 1)
        #expect((stdout.encoder as? ConsoleLogEncoder)?.colors == true)

        var toStderr = console
        toStderr.output = .stderr
        let stderr = try #require(try toStderr.makeSink(environment: terminal) as? StreamSink)
        #expect(stderr.fileDescriptor == 2)
        #expect((stderr.encoder as? ConsoleLogEncoder)?.colors == false)

        let json = try #require(try LoggingConfiguration(enableCaller: true).makeSink(environment: terminal) as? StreamSink)
        #expect((json.encoder as? JSONLogEncoder)?.caller == .always)
    }

    @Test func bothWritesStandardOutputAndAnUncolouredFile() throws {
        try withLoggingTemporaryDirectory { dir in
            let configuration = LoggingConfiguration(format: .console, output: .both, filePath: dir + "/logs/x.log")
            let sink = try #require(try configuration.makeSink(environment: LoggingEnvironment(isTerminal: { _ in true }))
                as? MultiplexingSink)
            #expect(sink.sinks.count == 2)
            #expect((sink.sinks[0] as? StreamSink)?.fileDescriptor == 1)
            let file = try #require(sink.sinks[1] as? RotatingFileSink)
            #expect((file.encoder as? ConsoleLogEncoder)?.colors == false)
            #expect(file.configuration.path == dir + "/logs/x.log")
            #expect(FileManager.default.fileExists(atPath: dir + "/logs/x.log"))
            sink.close()
        }
    }

    @Test func makeLoggerWritesRedactedRecordsAtTheConfiguredLevelWithTheInjectedClock() throws {
        try withLoggingTemporaryDirectory { dir in
            let clock = LoggingWallClock()
            let redactor = Redactor(secrets: ["Winp0wer!"])
            let configuration = LoggingConfiguration(level: .warn, output: .file, filePath: dir + "/app.log")
            let log = try configuration.makeLogger(label: "wpexporter", redactor: redactor,
                                                   environment: LoggingEnvironment(now: clock.now))
            #expect(log.level == .warn)
            #expect(log.redactor === redactor)
            log.info("not written")
            log.child(label: "client").warn("login failed for Winp0wer!", ["password": "Winp0wer!"])
            log.sink.close()
            log.error("after close is dropped")
            #expect(LoggingFiles.text(dir + "/app.log") ==
                #"{"time":"2026-11-22T02:37:19.123Z","level":"warn","logger":"client","message":"login failed for ***","password":"***"}"# + "\n")
        }
    }

    @Test func anUnusableFilePathFailsWithTheRotatingSinkError() throws {
        try withLoggingTemporaryDirectory { dir in
            _ = FileManager.default.createFile(atPath: dir + "/blocker", contents: Data())
            let configuration = LoggingConfiguration(output: .both, filePath: dir + "/blocker/app.log")
            #expect(throws: LoggingError.cannotCreateDirectory(path: dir + "/blocker", errno: ENOTDIR, reason: "Not a directory")) {
                _ = try configuration.makeSink()
            }
        }
    }
}

@Suite(.ownThreads, .timeLimit(.minutes(3))) struct StreamAndMultiplexingSinkTests {
    @Test func streamSinkWritesWholeLinesToItsDescriptor() throws {
        var fds: [Int32] = [0, 0]
        #expect(pipe(&fds) == 0)
        let sink = StreamSink(fileDescriptor: fds[1], encoder: MessageOnlyEncoder(), name: "pipe", delivery: .synchronous)
        for index in 0..<3 { sink.write(.make(message: "line \(index)")) }
        close(fds[1])
        let data = FileHandle(fileDescriptor: fds[0], closeOnDealloc: true).readDataToEndOfFile()
        #expect(String(decoding: data, as: UTF8.self) == "line 0\nline 1\nline 2\n")
    }

    @Test func streamSinkReportsAFailingDescriptorOnce() throws {
        try withLoggingTemporaryDirectory { dir in
            _ = FileManager.default.createFile(atPath: dir + "/ro", contents: Data())
            let handle = try #require(FileHandle(forReadingAtPath: dir + "/ro"))
            let failures = LoggingFailureRecorder()
            let sink = StreamSink(fileDescriptor: handle.fileDescriptor, encoder: JSONLogEncoder(), name: "stdout",
                                  reportFailure: failures.record, delivery: .synchronous)
            for _ in 0..<3 { sink.write(.make()) }
            #expect(failures.reports == ["logging: stdout: write failed: Bad file descriptor (errno \(EBADF)) (further write failures are not reported)"])
            try handle.close()
        }
    }

    @Test func multiplexingSinkWritesEveryRecordToEverySinkInOrder() {
        let first = InMemoryLogSink(), second = InMemoryLogSink()
        let log = WPLogger(label: "m", sink: MultiplexingSink([first, second]))
        log.info("a")
        log.error("b")
        #expect(first.records.map(\.message) == ["a", "b"])
        #expect(second.records == first.records)
    }
}
