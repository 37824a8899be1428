import Synchronization
import WPLogging

/// A ``LogSink`` that encodes every record with a real encoder and keeps the bytes, so tests
/// can assert on exactly what would reach a terminal or a file.
public final class LoggingCaptureSink: LogSink {
    private let encoder: any LogEncoder
    private let bytes = Mutex<[UInt8]>([])

    /// - Parameter encoder: The encoder under test; JSON without caller by default.
    public init(encoder: any LogEncoder = JSONLogEncoder()) {
        self.encoder = encoder
    }

    public func write(_ record: LogRecord) {
        var line: [UInt8] = []
        encoder.encode(record, into: &line)
        bytes.withLock { $0.append(contentsOf: line) }
    }

    /// Everything written so far, decoded as UTF-8.
    public var text: String { String(decoding: bytes.withLock { $0 }, as: UTF8.self) }

    /// The written lines, without their terminating newlines.
    public var lines: [String] { text.split(separator: "\n", omittingEmptySubsequences: false).dropLast().map(String.init) }
}
