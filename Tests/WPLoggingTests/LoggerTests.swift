import Testing
import WPTestThreads
import WPLogging
import WPTestSupport

@Suite(.ownThreads, .timeLimit(.minutes(3))) struct LoggerTests {
    @Test func filtersBelowMinimumLevel() {
        let sink = InMemoryLogSink()
        let log = WPLogger(label: "t", level: .warn, sink: sink)
        log.debug("d")
        log.info("i")
        log.warn("w")
        log.error("e")
        #expect(sink.records.map(\.message) == ["w", "e"])
        #expect(sink.records.map(\.level) == [.warn, .error])
    }

    @Test func childMergesFieldsWithoutChangingParent() {
        let sink = InMemoryLogSink()
        let parent = WPLogger(label: "parent", level: .debug, sink: sink, fields: ["a": 1])
        let child = parent.child(label: "child", fields: ["b": "x"])
        child.info("hello", ["a": 2])
        parent.info("plain")
        #expect(sink.records[0].logger == "child")
        #expect(sink.records[0].fields == ["a": 2, "b": "x"])
        #expect(sink.records[1].logger == "parent")
        #expect(sink.records[1].fields == ["a": 1])
    }

    @Test func componentNestsUnderTheLabelAndKeepsTheRest() {
        let sink = InMemoryLogSink()
        let service = WPLogger(label: "shop", level: .warn, sink: sink, fields: ["a": 1])
        service.component("winpower").component("collector", fields: ["server": "b"]).warn("cycle failed")
        service.component("winpower").info("below the level")
        WPLogger(label: "", sink: sink).component("client").warn("bare")
        #expect(sink.records.map(\.logger) == ["shop.winpower.collector", "client"])
        #expect(sink.records[0].fields == ["a": 1, "server": "b"])
    }

    @Test func levelNamesParse() {
        #expect(LogLevel(name: "WARNING") == .warn)
        #expect(LogLevel(name: "debug") == .debug)
        #expect(LogLevel(name: "verbose") == nil)
    }
}
