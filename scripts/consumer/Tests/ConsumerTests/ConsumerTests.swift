import Consumer
import Synchronization
import Testing
import WPLogging

/// Records what reaches a sink, after the logger's redaction.
final class RecordingSink: LogSink {
    private let records = Mutex<[LogRecord]>([])
    func write(_ record: LogRecord) { records.withLock { $0.append(record) } }
    var written: [LogRecord] { records.withLock { $0 } }
}

@Suite struct ConsumerTests {
    @Test func instrumentsRenderAndLogsAreRedacted() throws {
        let metrics = try ServiceMetrics()
        let sink = RecordingSink()
        let logger = Logger(label: "consumer", sink: sink)
        try metrics.record(method: "GET", seconds: 0.02, logger: logger)
        try metrics.record(method: "GET", seconds: 0.03, logger: logger)
        let text = metrics.exposition()
        #expect(text.contains("consumer_requests_total{method=\"GET\"} 2\n"))
        #expect(text.contains("consumer_latency_seconds_count 2\n"))
        #expect(sink.written.count == 2)
        #expect(sink.written.allSatisfy { $0.fields["authorization"] == .string(Redactor.mask) })
    }
}
