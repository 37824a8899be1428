import WPPOSIX
import Synchronization
import WPRuntime

/// Writes bytes to a file descriptor from a thread of its own, so a caller never waits for the
/// reader of the descriptor.
///
/// A process that logs to a pipe or a terminal depends on whoever reads it: a log shipper that
/// stalls, a terminal paused with Ctrl-S, or a `docker logs` buffer that is full makes every
/// `write(2)` block. Written on the caller's thread, that would stall a Swift concurrency pool
/// thread (there is one per core, and the pool does not grow), and with it every task
/// scheduled on that thread. `write(_:)` only appends to a queue and returns; one background
/// thread (a serial `WorkerQueue`: started when there is something to write, gone when the
/// queue is empty) writes the queue out in order. When no thread can be created, what is
/// queued is dropped, counted in ``droppedWrites`` and reported once; the next write tries
/// again.
///
/// The queue is bounded by ``limit`` bytes. When the reader stops and the queue is full, new
/// writes are dropped and counted (``droppedWrites``) instead of waiting or growing memory; a
/// write arriving at an empty queue is always taken, whatever its size. ``flush(timeout:)``
/// waits, with a deadline, for what was queued before it; call it before the process exits.
///
/// One writer per descriptor in a process keeps the order of everything written to it:
/// ``shared(fileDescriptor:name:)`` returns it (standard output and standard error).
///
/// ```swift
/// let out = StreamWriter.shared(fileDescriptor: 1, name: "stdout")
/// out.write(Array("hello\n".utf8))
/// _ = out.flush(timeout: .seconds(2))
/// ```
public final class StreamWriter: Sendable {
    /// The default bound of the queue: 1 MiB.
    public static let defaultLimit = 1 << 20

    /// The descriptor written to; not owned, never closed.
    public let fileDescriptor: Int32
    /// The most bytes held in the queue; later writes are dropped until it drains.
    public let limit: Int
    private let state = Mutex(State())
    private let worker = WorkerQueue(name: "log-writer")
    private let failures: FailureReporter

    private struct State {
        var pending: [UInt8] = []
        var draining = false
        var dropped = 0
    }

    /// Creates a writer for `fileDescriptor`. Prefer ``shared(fileDescriptor:name:)`` for the
    /// standard streams, so every writer of a descriptor shares one queue.
    ///
    /// - Parameters:
    ///   - fileDescriptor: An open descriptor; not closed by the writer.
    ///   - name: How failures name this output, e.g. `stdout`.
    ///   - limit: The most bytes queued; ``defaultLimit`` by default.
    ///   - reportFailure: Receives the first write failure (called on the writer's thread);
    ///     standard error by default.
    public init(fileDescriptor: Int32, name: String? = nil, limit: Int = StreamWriter.defaultLimit,
                reportFailure: @escaping @Sendable (String) -> Void = LoggingEnvironment.writeToStandardError) {
        self.fileDescriptor = fileDescriptor
        self.limit = max(limit, 0)
        self.failures = FailureReporter(sinkName: name ?? "fd \(fileDescriptor)", output: reportFailure)
    }

    private static let registry = Mutex<[Int32: StreamWriter]>([:])

    /// The process-wide writer of `fileDescriptor`, made on first use.
    public static func shared(fileDescriptor: Int32, name: String? = nil) -> StreamWriter {
        registry.withLock { writers in
            if let writer = writers[fileDescriptor] { return writer }
            let writer = StreamWriter(fileDescriptor: fileDescriptor, name: name)
            writers[fileDescriptor] = writer
            return writer
        }
    }

    /// Waits for every shared writer's queue (see ``flush(timeout:)``), each with the same
    /// deadline; `false` when one is still writing when it passes. Call it before the process
    /// exits.
    @discardableResult
    public static func flushShared(timeout: Duration) -> Bool {
        flushEach(registry.withLock { Array($0.values) }, within: timeout) { $0.flush(timeout: $1) }
    }

    /// Queues `bytes` and returns at once. Returns `false`, and counts the write in
    /// ``droppedWrites``, when the queue already holds ``limit`` bytes.
    @discardableResult
    public func write(_ bytes: [UInt8]) -> Bool {
        if bytes.isEmpty { return true }
        let start: Bool? = state.withLock { state in
            if !state.pending.isEmpty && state.pending.count + bytes.count > limit {
                state.dropped += 1
                return nil
            }
            state.pending.append(contentsOf: bytes)
            if state.draining { return false }
            state.draining = true
            return true
        }
        guard let start else { return false }
        if start {
            worker.submit(WorkerQueue.Job(run: { [self] in drain() }, refuse: { [self] error in
                state.withLock { state in
                    if !state.pending.isEmpty { state.dropped += 1 }
                    state.pending = []
                    state.draining = false
                }
                failures.report(kind: "thread", "cannot start the writer thread, output dropped: \(error)")
            }))
        }
        return true
    }

    /// Writes that were dropped because the queue was full, since the writer was made.
    public var droppedWrites: Int { state.withLock { $0.dropped } }

    /// Bytes waiting to be written.
    public var queuedBytes: Int { state.withLock { $0.pending.count } }

    /// Waits until everything queued before this call has been written (or failed), at most
    /// `timeout`. Returns `false` when the deadline passed first: the reader is not reading,
    /// and the rest stays queued.
    @discardableResult
    public func flush(timeout: Duration) -> Bool {
        worker.waitForJobs(until: Deadline(after: timeout))
    }

    /// The last resort when ``flushShared(timeout:)`` ran out of time at exit (the writer
    /// thread was not scheduled on a loaded machine, or the reader is slow): every shared
    /// writer's queue is written by the calling thread, as much as each descriptor takes
    /// without waiting (a reader that stopped keeps the process from nothing). What the
    /// writer thread was already writing may end up after it.
    public static func writeQueuedWithoutWaiting() {
        for writer in registry.withLock({ Array($0.values) }) {
            let queued: [UInt8] = writer.state.withLock { state in
                var queued: [UInt8] = []
                swap(&queued, &state.pending)
                return queued
            }
            if !queued.isEmpty { _ = FileIO.writeWithoutWaiting(writer.fileDescriptor, queued) }
        }
    }

    /// Writes the queue out until it is empty; runs on the worker's thread.
    private func drain() {
        while true {
            let batch: [UInt8]? = state.withLock { state in
                if state.pending.isEmpty {
                    state.draining = false
                    return nil
                }
                var batch: [UInt8] = []
                swap(&batch, &state.pending)
                return batch
            }
            guard let batch else { return }
            if let failure = POSIXFile.writeAll(fileDescriptor, batch) {
                failures.reportWrite(errno: failure)
            }
        }
    }
}
