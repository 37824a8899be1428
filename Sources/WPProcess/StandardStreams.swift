#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
public import WPLogging

/// The process's standard output and standard error, and the way out of the process that does
/// not lose what was written to them nor wait for a reader that stopped reading.
///
/// Both are written from threads of their own (the descriptors' shared `StreamWriter`s, the
/// same ones the log sinks on these descriptors use, so their order is kept): a terminal paused
/// with Ctrl-S or a log shipper that stalled never blocks a task. ``exit(_:flushingWithin:)``
/// waits for what is queued, at most its timeout, then ends the process: a pipe nobody reads
/// delays exit by the timeout, never longer.
///
/// ```swift
/// StandardStreams.writeOutput("ready\n")
/// StandardStreams.exit(0, flushingWithin: .seconds(1))
/// ```
public enum StandardStreams {
    /// Standard output's writer (descriptor 1).
    public static let output = StreamWriter.shared(fileDescriptor: STDOUT_FILENO, name: "stdout")

    /// Standard error's writer (descriptor 2).
    public static let error = StreamWriter.shared(fileDescriptor: STDERR_FILENO, name: "stderr")

    /// Queues `text` for standard output and returns at once; `false` when it was dropped (the
    /// reader stopped reading and the queue is full).
    @discardableResult
    public static func writeOutput(_ text: String) -> Bool { output.write(Array(text.utf8)) }

    /// Queues `text` for standard error, as ``writeOutput(_:)``.
    @discardableResult
    public static func writeError(_ text: String) -> Bool { error.write(Array(text.utf8)) }

    /// Waits until what was queued for the standard streams (and every other shared
    /// `StreamWriter`) is written, at most `timeout` in all; `false` when a reader was not
    /// reading and the deadline passed first.
    @discardableResult
    public static func flush(timeout: Duration) -> Bool {
        StreamWriter.flushShared(timeout: timeout)
    }

    /// Ends the process with `status` once queued output is written, waiting at most `timeout`
    /// for a reader that is not reading. When the time runs out, what is still queued is written
    /// by this thread as far as each descriptor takes it without waiting: the last line (often
    /// why the process exits) is not lost because the writer thread was not scheduled in time.
    public static func exit(_ status: Int32, flushingWithin timeout: Duration) -> Never {
        if !flush(timeout: timeout) { StreamWriter.writeQueuedWithoutWaiting() }
        terminate(status)
    }

    private static func terminate(_ status: Int32) -> Never {
        #if canImport(Glibc)
        Glibc.exit(status)
        #elseif canImport(Musl)
        Musl.exit(status)
        #elseif canImport(Darwin)
        Darwin.exit(status)
        #endif
    }
}
