import Synchronization
package import WPLogging

/// A ``LogSink`` that keeps every record in memory, for assertions in tests.
package final class InMemoryLogSink: LogSink {
    private let storage = Mutex<[LogRecord]>([])

    package init() {}

    package func write(_ record: LogRecord) {
        storage.withLock { $0.append(record) }
    }

    /// Every record written so far, in order.
    package var records: [LogRecord] { storage.withLock { $0 } }

    /// Every message and field value written so far, as one string: handy for asserting a
    /// secret appears nowhere.
    package var allText: String {
        records.map { record in
            ([record.message] + record.fields.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" })
                .joined(separator: " ")
        }.joined(separator: "\n")
    }

    /// A logger at `level` writing into this sink.
    package func logger(label: String = "test", level: LogLevel = .debug) -> WPLogger {
        WPLogger(label: label, level: level, sink: self)
    }
}
