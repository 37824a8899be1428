import WPPOSIX
import WPRuntime
import Synchronization

/// Writes encoded records to an already open file descriptor, typically standard output or
/// standard error.
///
/// Each record is encoded on the caller's thread, outside any lock, and then delivered as the
/// sink's ``Delivery`` says:
/// - ``Delivery/background``: appended to the descriptor's ``StreamWriter`` queue, written out
///   by a thread of its own. A reader that stops reading never blocks the caller; when the
///   queue is full, records are dropped and counted (``droppedRecords``), and the next record
///   that fits is preceded by a `warn` record saying how many were lost. Call ``close()`` (or
///   ``flush(timeout:)``) before the process exits.
/// - ``Delivery/synchronous``: written with a single `write(2)` call under the sink's lock
///   (retried only on `EINTR` or a partial write); the caller waits for the reader.
///
/// Either way records from concurrent callers never interleave and each appears as one whole
/// line. The sink does not own the descriptor and never closes it. A failed write is dropped
/// and reported once.
///
/// ```swift
/// let sink = StreamSink.standardOutput(encoder: JSONLogEncoder())
/// let log = WPLogger(label: "app", sink: sink)
/// ```
public final class StreamSink: LogSink {
    /// The descriptor written to.
    public let fileDescriptor: Int32
    /// How records are turned into lines.
    public let encoder: any LogEncoder
    /// How records reach the descriptor.
    public let delivery: Delivery
    private let lock = Mutex<Void>(())
    /// Reports failed writes of synchronous delivery (the writer reports its own).
    private let failures: FailureReporter?
    private let writer: StreamWriter?
    private let dropped = Atomic<Int>(0)

    /// How a ``StreamSink`` hands records to its descriptor.
    public enum Delivery: Sendable, Equatable {
        /// On the caller's thread, which waits for the reader.
        case synchronous
        /// Through the descriptor's shared ``StreamWriter``: the caller never waits.
        case background
    }

    /// Creates a sink writing to `fileDescriptor`.
    ///
    /// - Parameters:
    ///   - fileDescriptor: An open descriptor; not closed by the sink.
    ///   - encoder: How records are turned into lines.
    ///   - name: How failures name this output, e.g. `stdout`.
    ///   - reportFailure: Receives the first failure of each kind; standard error by default.
    ///     With background delivery the descriptor's shared ``StreamWriter`` reports write
    ///     failures instead.
    ///   - delivery: ``Delivery/background`` by default, so whichever thread logs never
    ///     waits for the reader (nor holds a lock while it waits); ``Delivery/synchronous``
    ///     writes on the caller's thread.
    public init(fileDescriptor: Int32, encoder: any LogEncoder, name: String? = nil,
                reportFailure: @escaping @Sendable (String) -> Void = LoggingEnvironment.writeToStandardError,
                delivery: Delivery = .background) {
        self.fileDescriptor = fileDescriptor
        self.encoder = encoder
        self.delivery = delivery
        switch delivery {
        case .synchronous:
            self.failures = FailureReporter(sinkName: name ?? "fd \(fileDescriptor)", output: reportFailure)
            self.writer = nil
        case .background:
            self.failures = nil
            self.writer = StreamWriter.shared(fileDescriptor: fileDescriptor, name: name)
        }
    }

    /// Creates a sink delivering in the background through `writer` (its own queue, rather
    /// than the descriptor's shared one).
    public init(writer: StreamWriter, encoder: any LogEncoder) {
        self.fileDescriptor = writer.fileDescriptor
        self.encoder = encoder
        self.delivery = .background
        self.failures = nil
        self.writer = writer
    }

    /// A sink writing to standard output (descriptor 1) from a background thread.
    public static func standardOutput(encoder: any LogEncoder) -> StreamSink {
        StreamSink(fileDescriptor: 1, encoder: encoder, name: "stdout", delivery: .background)
    }

    /// A sink writing to standard error (descriptor 2) from a background thread.
    public static func standardError(encoder: any LogEncoder) -> StreamSink {
        StreamSink(fileDescriptor: 2, encoder: encoder, name: "stderr", delivery: .background)
    }

    /// Encodes `record` and delivers it as the sink's ``Delivery`` says: queued for the writer's
    /// thread (dropped and counted when the queue is full), or written before returning.
    public func write(_ record: LogRecord) {
        var line: [UInt8] = []
        encoder.encode(record, into: &line)
        guard let writer else {
            let failure = lock.withLock { _ in POSIXFile.writeAll(fileDescriptor, line) }
            if let failure { failures?.reportWrite(errno: failure) }
            return
        }
        let lost = dropped.exchange(0, ordering: .relaxed)
        if lost > 0 {
            var notice: [UInt8] = []
            encoder.encode(Self.dropNotice(lost, before: record), into: &notice)
            line = notice + line
        }
        if !writer.write(line) { dropped.add(lost + 1, ordering: .relaxed) }
    }

    /// Records dropped since the last one that reached the queue (background delivery only);
    /// the next record that fits is preceded by a notice with this count.
    public var droppedRecords: Int { dropped.load(ordering: .relaxed) }

    /// Waits, at most `timeout`, until every record written before has reached the descriptor;
    /// `false` when the reader did not take them in time. Always `true` for synchronous
    /// delivery.
    @discardableResult
    public func flush(timeout: Duration) -> Bool {
        writer?.flush(timeout: timeout) ?? true
    }

    /// Waits up to ``closeTimeout`` for queued records (background delivery). The descriptor
    /// stays open; records written later are still delivered.
    public func close() {
        flush(timeout: Self.closeTimeout)
    }

    /// How long ``close()`` waits for a reader that is not reading: 1 s.
    public static let closeTimeout: Duration = .seconds(1)

    /// The `warn` record written before the first record that fits after `count` were dropped.
    static func dropNotice(_ count: Int, before record: LogRecord) -> LogRecord {
        LogRecord(time: record.time, level: .warn,
                  message: "log records dropped: the reader of this output was not reading and the queue was full",
                  logger: "logging", fields: ["dropped": .int(count)])
    }
}
