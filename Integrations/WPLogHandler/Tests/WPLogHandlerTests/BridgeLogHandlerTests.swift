import Logging
import Synchronization
import Testing
import WPLogging
import WPLogHandler

/// Keeps every record written, for assertions.
final class CaptureSink: LogSink {
    private let stored = Mutex<[LogRecord]>([])
    var records: [LogRecord] { stored.withLock { $0 } }
    func write(_ record: LogRecord) { stored.withLock { $0.append(record) } }
}

@Suite(.timeLimit(.minutes(3))) struct BridgeLogHandlerTests {
    private func makeLogger(_ sink: CaptureSink, level: LogLevel = .debug,
                            redactor: Redactor = Redactor()) -> Logger {
        let base = WPLogger(label: "service", level: level, sink: sink,
                                    now: { LogTimestamp(seconds: 0) }, redactor: redactor)
        return Logger(label: "nio") { label in BridgeLogHandler(label: label, logger: base) }
    }

    @Test func levelsAreMappedAndLabelKept() {
        let sink = CaptureSink()
        var logger = makeLogger(sink)
        logger.logLevel = .trace
        logger.trace("t"); logger.debug("d"); logger.info("i"); logger.notice("n")
        logger.warning("w"); logger.error("e"); logger.critical("c")
        #expect(sink.records.map(\.level) == [.debug, .debug, .info, .info, .warn, .error, .error])
        #expect(sink.records.map(\.message) == ["t", "d", "i", "n", "w", "e", "c"])
        #expect(sink.records.allSatisfy { $0.logger == "nio" })
    }

    @Test func swiftLogLevelStartsAtTheWPLoggingLevelAndFilters() {
        let sink = CaptureSink()
        let logger = makeLogger(sink, level: .warn)
        #expect(logger.logLevel == .warning)
        logger.info("dropped")
        logger.warning("kept")
        #expect(sink.records.map(\.message) == ["kept"])
    }

    @Test func nestedMetadataIsFlattenedWithDottedKeys() {
        let sink = CaptureSink()
        var logger = makeLogger(sink)
        logger[metadataKey: "request_id"] = "r1"
        logger.info("request", metadata: [
            "http": ["method": "GET", "status": .stringConvertible(200)],
            "ids": ["a", ["b", "c"]],
            "empty": [:],
        ])
        let fields = sink.records.first?.fields ?? [:]
        #expect(fields["request_id"] == .string("r1"))
        #expect(fields["http.method"] == .string("GET"))
        #expect(fields["http.status"] == .string("200"))
        #expect(fields["ids.0"] == .string("a"))
        #expect(fields["ids.1.0"] == .string("b"))
        #expect(fields["ids.1.1"] == .string("c"))
        #expect(fields["empty"] == .string("[:]"))
        #expect(fields["source"] == .string("WPLogHandlerTests"))
    }

    @Test func passwordsAndAuthorizationInMetadataAreMasked() {
        let sink = CaptureSink()
        let redactor = Redactor(secrets: ["hunter2-secret"])
        let logger = makeLogger(sink, redactor: redactor)
        logger.info("login with hunter2-secret", metadata: [
            "password": "pa55word",
            "headers": ["Authorization": "Basic dXNlcjpwYTU1d29yZA=="],
            "note": "token is hunter2-secret",
        ])
        let record = sink.records.first
        let text = "\(record?.message ?? "") \(record?.fields ?? [:])"
        #expect(!text.contains("pa55word"))
        #expect(!text.contains("dXNlcjpwYTU1d29yZA"))
        #expect(!text.contains("hunter2-secret"))
        #expect(record?.fields["password"] != nil)
        #expect(record?.fields["headers.Authorization"] != nil)
    }

    @Test func metadataIsAValuePerHandler() {
        let sink = CaptureSink()
        var first = makeLogger(sink)
        var second = first
        first[metadataKey: "a"] = "1"
        second[metadataKey: "b"] = "2"
        first.info("x")
        #expect(sink.records.first?.fields["a"] == .string("1"))
        #expect(sink.records.first?.fields["b"] == nil)
    }

    @Test func providerMetadataIsMergedUnderTheCallsAndDeepNestingIsCut() {
        let sink = CaptureSink()
        let base = WPLogger(label: "service", level: .debug, sink: sink)
        let provider = Logger.MetadataProvider { ["trace_id": "t1", "shared": "provider"] }
        let logger = Logger(label: "lib") { label in
            BridgeLogHandler(label: label, logger: base, metadataProvider: provider)
        }
        var deep: Logger.MetadataValue = "leaf"
        for _ in 0..<20 { deep = .dictionary(["d": deep]) }
        logger.info("x", metadata: ["shared": "call", "deep": deep])
        let fields = sink.records.first?.fields ?? [:]
        #expect(fields["trace_id"] == .string("t1"))
        #expect(fields["shared"] == .string("call"))
        let deepKey = "deep" + String(repeating: ".d", count: BridgeLogHandler.maximumDepth)
        #expect(fields[deepKey] != nil)
        #expect(fields.keys.filter { $0.hasPrefix("deep") }.count == 1)
    }
}
