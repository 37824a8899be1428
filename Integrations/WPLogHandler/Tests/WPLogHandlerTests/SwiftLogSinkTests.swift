import Logging
import Synchronization
import Testing
import WPLogging
import WPLogHandler

/// A swift-log handler that keeps what it is given.
struct CapturingHandler: LogHandler {
    struct Entry: Sendable, Equatable {
        var label: String
        var level: Logger.Level
        var message: String
        var metadata: [String: String]
        var line: UInt
    }

    let label: String
    let entries: Entries
    var logLevel: Logger.Level = .trace
    var metadata: Logger.Metadata = [:]

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        // The handler's own metadata, then the call's, as swift-log's handlers merge them.
        let values = metadata.merging(event.metadata ?? [:]) { $1 }.mapValues { "\($0)" }
        entries.append(Entry(label: label, level: event.level, message: "\(event.message)", metadata: values, line: event.line))
    }

    final class Entries: Sendable {
        private let stored = Mutex<[Entry]>([])
        var all: [Entry] { stored.withLock { $0 } }
        func append(_ entry: Entry) { stored.withLock { $0.append(entry) } }
    }
}

/// WPLogging records into swift-log: an embedded exporter logs through the service's backend.
@Suite(.timeLimit(.minutes(3))) struct SwiftLogSinkTests {
    @Test func recordsReachSwiftLogUnderTheNestedLabelWithLevelsAndFields() {
        let entries = CapturingHandler.Entries()
        let sink = SwiftLogSink(labelPrefix: "winpower") { label in
            Logger(label: label) { CapturingHandler(label: $0, entries: entries) }
        }
        let root = WPLogger(label: "", level: .debug, sink: sink)
        let collector = root.child(label: "collector")
        collector.debug("collected", ["devices": .int(3), "server": .string("east")])
        collector.warn("slow")
        root.child(label: "client").error("login failed", ["ok": .bool(false)])
        root.info("started")
        #expect(entries.all.map(\.label) == ["winpower.collector", "winpower.collector", "winpower.client", "winpower"])
        #expect(entries.all.map(\.level) == [.debug, .warning, .error, .info])
        #expect(entries.all.map(\.message) == ["collected", "slow", "login failed", "started"])
        #expect(entries.all[0].metadata == ["devices": "3", "server": "east"])
        #expect(entries.all[2].metadata == ["ok": "false"])
        #expect(entries.all[0].line > 0, "the call site is passed on")
    }

    /// A service's own swift-log `Logger` (its handler, level and label) is what the exporter
    /// and the other libraries take: `WPLogger.swiftLog(logger)`.
    @Test func aServicesLoggerIsTakenWithItsHandlerLevelAndLabel() {
        let entries = CapturingHandler.Entries()
        var logger = Logger(label: "myservice") { CapturingHandler(label: $0, entries: entries) }
        logger.logLevel = .info
        logger[metadataKey: "request"] = "r-1"
        let log = WPLogger.swiftLog(logger, redactor: Redactor(secrets: ["hunter2"]))
        log.child(label: "collector").info("collected", ["devices": .int(3)])
        log.child(label: "collector").debug("below the service's level")
        log.warn("login with hunter2 refused")
        #expect(entries.all.map(\.level) == [.info, .warning])
        #expect(entries.all.map { $0.metadata["logger"] } == ["myservice.collector", "myservice"])
        #expect(entries.all.allSatisfy { $0.label == "myservice" && $0.metadata["request"] == "r-1" })
        #expect(entries.all[0].metadata["devices"] == "3")
        #expect(!entries.all[1].message.contains("hunter2"))
    }

    @Test func secretsAreMaskedBeforeSwiftLogSeesThem() {
        let entries = CapturingHandler.Entries()
        let sink = SwiftLogSink { label in Logger(label: label) { CapturingHandler(label: $0, entries: entries) } }
        let log = WPLogger(label: "client", sink: sink, redactor: Redactor(secrets: ["hunter2-Secret"]))
        log.info("login with hunter2-Secret", ["password": .string("hunter2-Secret")])
        let text = entries.all.map { "\($0.message) \($0.metadata)" }.joined()
        #expect(!text.isEmpty)
        #expect(!text.contains("hunter2-Secret"))
    }
}
