/// Sends every record to several sinks in order, e.g. standard output and a rotating file.
///
/// Each destination keeps its own encoder and its own serialisation; a failure in one does
/// not affect the others.
///
/// ```swift
/// let sink = MultiplexingSink([StreamSink.standardOutput(encoder: console), fileSink])
/// ```
public struct MultiplexingSink: LogSink {
    /// The destinations, written in this order.
    public let sinks: [any LogSink]

    /// Creates a sink that writes to each of `sinks`.
    ///
    /// - Parameter sinks: The destinations, written in this order.
    public init(_ sinks: [any LogSink]) {
        self.sinks = sinks
    }

    /// Writes `record` to every destination, in order.
    public func write(_ record: LogRecord) {
        for sink in sinks { sink.write(record) }
    }

    /// Closes every destination, in order.
    public func close() {
        for sink in sinks { sink.close() }
    }

    /// Flushes every destination, in order, sharing one deadline.
    public func flush(timeout: Duration) -> Bool {
        flushEach(sinks, within: timeout) { $0.flush(timeout: $1) }
    }
}
