import Synchronization
package import WPLogging

/// A ``LogSink`` that encodes every record with a real encoder and keeps the bytes, so tests
/// can assert on exactly what would reach a terminal or a file.
package final class LoggingCaptureSink: LogSink {
    private let encoder: any LogEncoder
    private let bytes = Mutex<[UInt8]>([])

    /// - Parameter encoder: The encoder under test; JSON without caller by default.
    package init(encoder: any LogEncoder = JSONLogEncoder()) {
        self.encoder = encoder
    }

    package func write(_ record: LogRecord) {
        var line: [UInt8] = []
        encoder.encode(record, into: &line)
        bytes.withLock { $0.append(contentsOf: line) }
    }

    /// Everything written so far, decoded as UTF-8.
    package var text: String { String(decoding: bytes.withLock { $0 }, as: UTF8.self) }

    /// The written lines, without their terminating newlines.
    package var lines: [String] { text.split(separator: "\n", omittingEmptySubsequences: false).dropLast().map(String.init) }
}
