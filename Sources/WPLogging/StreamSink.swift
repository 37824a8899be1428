import Synchronization

/// Writes encoded records to an already open file descriptor, typically standard output or
/// standard error.
///
/// Each record is encoded outside the lock, then written with a single `write(2)` call under
/// the sink's lock (retried only on `EINTR` or a partial write), so records from concurrent
/// callers never interleave and each appears as one whole line. The sink does not own the
/// descriptor and never closes it. A failed write is dropped and reported once.
///
/// ```swift
/// let sink = StreamSink.standardOutput(encoder: JSONLogEncoder())
/// let log = Logger(label: "app", sink: sink)
/// ```
public final class StreamSink: LogSink {
    /// The descriptor written to.
    public let fileDescriptor: Int32
    /// How records are turned into lines.
    public let encoder: any LogEncoder
    private let lock = Mutex<Void>(())
    private let failures: FailureReporter

    /// Creates a sink writing to `fileDescriptor`.
    ///
    /// - Parameters:
    ///   - fileDescriptor: An open descriptor; not closed by the sink.
    ///   - encoder: How records are turned into lines.
    ///   - name: How failures name this output, e.g. `stdout`.
    ///   - reportFailure: Receives the first failure of each kind; standard error by default.
    public init(fileDescriptor: Int32, encoder: any LogEncoder, name: String? = nil,
                reportFailure: @escaping @Sendable (String) -> Void = LoggingEnvironment.writeToStandardError) {
        self.fileDescriptor = fileDescriptor
        self.encoder = encoder
        self.failures = FailureReporter(sinkName: name ?? "fd \(fileDescriptor)", output: reportFailure)
    }

    /// A sink writing to standard output (descriptor 1).
    public static func standardOutput(encoder: any LogEncoder) -> StreamSink {
        StreamSink(fileDescriptor: 1, encoder: encoder, name: "stdout")
    }

    /// A sink writing to standard error (descriptor 2).
    public static func standardError(encoder: any LogEncoder) -> StreamSink {
        StreamSink(fileDescriptor: 2, encoder: encoder, name: "stderr")
    }

    public func write(_ record: LogRecord) {
        var line: [UInt8] = []
        encoder.encode(record, into: &line)
        let failure = lock.withLock { _ in FileIO.writeAll(fileDescriptor, line) }
        if let failure {
            failures.report(kind: "write", "write failed: \(FileIO.reason(failure)) (errno \(failure))")
        }
    }
}
