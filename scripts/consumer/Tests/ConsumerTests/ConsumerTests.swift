import Consumer
import Synchronization
import SystemPackage
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
        let logger = WPLogger(label: "consumer", sink: sink)
        try metrics.record(method: "GET", seconds: 0.02, logger: logger)
        try metrics.record(method: "GET", seconds: 0.03, logger: logger)
        let text = metrics.exposition()
        #expect(text.contains("consumer_requests_total{method=\"GET\"} 2\n"))
        #expect(text.contains("consumer_latency_seconds_count 2\n"))
        #expect(sink.written.count == 2)
        #expect(sink.written.allSatisfy { $0.fields["authorization"] == .string(Redactor.mask) })
    }

    @Test func expositionGoesThroughSwiftSystem() throws {
        let metrics = try ServiceMetrics()
        try metrics.requests.labels("PUT").increment()
        let pipe = try FileDescriptor.pipe()
        defer { try? pipe.readEnd.close() }
        try pipe.writeEnd.closeAfter { try metrics.writeExposition(to: pipe.writeEnd) }
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = try buffer.withUnsafeMutableBytes { try pipe.readEnd.read(into: $0) }
            if count == 0 { break }
            received += buffer[..<count]
        }
        #expect(String(decoding: received, as: UTF8.self) == metrics.exposition())
        #expect(metrics.exposition().contains("consumer_requests_total{method=\"PUT\"} 1\n"))
    }
}
