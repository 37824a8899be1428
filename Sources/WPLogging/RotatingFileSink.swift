import WPPOSIX
import Synchronization
import WPRuntime
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Appends records to a file and rotates it by size, keeping a bounded number of gzipped backups.
///
/// - **Rotation.** Before a write that would make the file larger than
///   ``Configuration-swift.struct/maxSizeBytes``, the file is renamed to
///   `<stem>-<YYYY-MM-DDTHH-MM-SS.mmm><ext>` (UTC rotation time from the injected wall clock,
///   e.g. `wpexporter-2026-11-22T02-37-19.123.log`; `-1`, `-2`, ... is appended for rotations
///   in the same millisecond) and a new file is started. Names always sort oldest to newest: if
///   the clock steps back, the newest backup's time is reused with a higher sequence number. A single record larger than the limit is still written
///   whole, into a fresh file.
/// - **Retention.** Rotated files beyond ``Configuration-swift.struct/maxBackups`` (newest kept)
///   and those whose rotation time is older than ``Configuration-swift.struct/maxAge`` are
///   deleted.
/// - **Compression.** With ``Configuration-swift.struct/compress``, rotated files are gzipped to
///   `<name>.gz` (via a `.gz.tmp` file renamed into place, then the original removed).
///
/// **Writing.** ``write(_:)`` encodes the record and queues the line, nothing more: the file
/// is written, renamed and reopened by one background thread (a serial `WorkerQueue` named
/// `log-file`, started when a line is queued, gone when the sink is idle), so a log call never
/// waits for the disk and no lock is held across disk I/O. Lines are written in the order they
/// were queued, each as one `write(2)` on an `O_APPEND` descriptor. The queue holds at most
/// ``Configuration-swift.struct/bufferLimitBytes``; lines beyond it are dropped, counted in
/// ``droppedRecords`` and reported once, like I/O failures. ``flush(timeout:)`` waits, with a
/// deadline, until lines queued before it are written; ``close(timeout:)`` writes what is
/// queued, closes the file and waits for the same and for maintenance, all within its deadline.
///
/// A rotation is named after the time the line that caused it was written. Retention and
/// compression run one pass at a time on a second serial queue (`log-rotate`, also only while
/// there is work), so compressing a large backup never holds up the lines. The same maintenance
/// also runs once when the sink is created, which compresses backups left uncompressed by a
/// previous crash and removes expired ones. ``waitForMaintenance(timeout:)`` waits, with a
/// deadline, until the lines and the maintenance queued before it are done.
///
/// I/O failures never crash and never throw: the record is dropped and the first failure of
/// each kind is reported. If the file cannot be reopened after a rotation, every later write
/// retries the open. If the writer's thread cannot be created, the lines queued are dropped,
/// counted and reported, and the next write tries again.
///
/// ```swift
/// let sink = try RotatingFileSink(
///     configuration: .init(path: "logs/wpexporter.log", maxSizeMB: 100, maxBackups: 3),
///     encoder: JSONLogEncoder())
/// ```
public final class RotatingFileSink: LogSink {
    /// The settings in use.
    public let configuration: Configuration
    /// How records are turned into lines.
    public let encoder: any LogEncoder

    /// The file as the writer's thread sees it.
    private struct File {
        var fd: Int32
        var size: Int
        /// Stamp and sequence of the newest backup, so the next name always sorts after it,
        /// even when maintenance has deleted older names or the wall clock stepped back.
        var lastStamp: String?
        var lastSequence = 0
    }

    /// A line and when it was written: a rotation it causes is named after that time.
    private struct Line {
        var bytes: [UInt8]
        var time: LogTimestamp
    }

    /// Lines waiting for the writer.
    private struct Queue {
        var lines: [Line] = []
        var bytes = 0
        var draining = false
        var closed = false
        var dropped = 0
    }

    // Locked only by jobs of `writer`, a serial queue: one at a time, never by a caller of
    // write(_:), so holding it across the disk I/O makes no one wait. It makes the
    // descriptor Sendable; deinit takes it once no job can run.
    private let file: Mutex<File>
    private let queue = Mutex(Queue())
    private let size = Atomic<Int>(0)
    let naming: BackupNaming
    let now: @Sendable () -> LogTimestamp
    let failures: FailureReporter
    private let writer: WorkerQueue
    private let maintenance: WorkerQueue

    /// Opens (creating it and its directory when missing) the log file for appending.
    ///
    /// - Parameters:
    ///   - configuration: Path, size limit, retention and compression.
    ///   - encoder: How records are turned into lines.
    ///   - now: The wall clock for rotated names and backup ages; the system clock by default.
    ///   - reportFailure: Receives the first I/O failure of each kind; standard error by default.
    /// - Throws: ``LoggingError/cannotCreateDirectory(path:errno:reason:)`` or
    ///   ``LoggingError/cannotOpenFile(path:errno:reason:)`` naming the path and the reason.
    public convenience init(configuration: Configuration, encoder: any LogEncoder,
                now: @escaping @Sendable () -> LogTimestamp = { LogTimestamp.now() },
                reportFailure: @escaping @Sendable (String) -> Void = LoggingEnvironment.writeToStandardError)
        throws(LoggingError) {
        try self.init(configuration: configuration, encoder: encoder, now: now, reportFailure: reportFailure,
                      starter: { name, body throws(ThreadStartError) in try NamedThread.start(name: name, body) })
    }

    /// Like the public initializer, with the writer's threads started by `starter` (tests
    /// inject failures).
    init(configuration: Configuration, encoder: any LogEncoder, now: @escaping @Sendable () -> LogTimestamp,
         reportFailure: @escaping @Sendable (String) -> Void, starter: @escaping WorkerQueue.Starter) throws(LoggingError) {
        guard !configuration.path.isEmpty else {
            throw .invalidConfiguration(key: "file_path", message: "must not be empty")
        }
        self.configuration = configuration
        self.encoder = encoder
        self.now = now
        self.naming = BackupNaming(path: configuration.path)
        self.failures = FailureReporter(sinkName: configuration.path, output: reportFailure)
        self.writer = WorkerQueue(name: "log-file", starter: starter)
        self.maintenance = WorkerQueue(name: "log-rotate", starter: starter)
        try FileIO.makeDirectories(naming.directory)
        let opened = try FileIO.openForAppend(configuration.path, mode: configuration.fileMode)
        self.file = Mutex(File(fd: opened.fd, size: opened.size))
        self.size.store(opened.size, ordering: .relaxed)
        if let newest = listBackups().first {
            file.withLock { file in
                file.lastStamp = newest.stamp
                file.lastSequence = newest.sequence
            }
        }
        scheduleMaintenance()
    }

    // The descriptor is a resource this object owns exclusively; closing it when the last
    // reference goes away is the only way to not leak it if `close()` was never called. No
    // job can run any more (each holds a reference).
    deinit {
        file.withLock { file in
            if file.fd >= 0 { FileIO.closeDescriptor(file.fd) }
        }
    }

    /// The size in bytes of the active file as the sink tracks it (lines written so far).
    public var currentSize: Int { size.load(ordering: .relaxed) }

    /// Records dropped because the queue was full or no writer thread could be started, since
    /// the sink was made.
    public var droppedRecords: Int { queue.withLock { $0.dropped } }

    /// Queues the record's line for the writer and returns at once.
    public func write(_ record: LogRecord) {
        var line: [UInt8] = []
        encoder.encode(record, into: &line)
        let time = now()
        let limit = configuration.bufferLimitBytes
        let start = queue.withLock { queue -> Bool? in
            guard !queue.closed else { return false }
            // A line arriving at an empty queue is always taken, whatever its size.
            if !queue.lines.isEmpty && queue.bytes + line.count > limit {
                queue.dropped += 1
                return nil
            }
            queue.lines.append(Line(bytes: line, time: time))
            queue.bytes += line.count
            defer { queue.draining = true }
            return !queue.draining
        }
        guard let start else {
            failures.report(kind: "buffer", "the writer is behind by \(limit) bytes; records are dropped and counted")
            return
        }
        if start {
            writer.submit(WorkerQueue.Job(run: { [self] in drain() }, refuse: { [self] error in
                let lost = queue.withLock { queue -> Int in
                    let lost = queue.lines.count
                    queue.dropped += lost
                    queue.lines = []
                    queue.bytes = 0
                    queue.draining = false
                    return lost
                }
                failures.report(kind: "thread", "cannot start the writer thread, \(lost) records dropped: \(error)")
            }))
        }
    }

    /// Waits until the lines written before this call are in the file (or failed), at most
    /// `timeout`; `false` when the deadline passed first (they stay queued).
    public func flush(timeout: Duration) -> Bool {
        writer.waitForJobs(until: Deadline(after: timeout))
    }

    /// Closes the sink within `timeout`: later writes are dropped; the lines queued so far
    /// are written, then the file is closed, on the writer's thread, and queued compression
    /// and clean-up finish. Waits for that at most `timeout`; `false` when the deadline passed
    /// first (the writer goes on).
    @discardableResult
    public func close(timeout: Duration) -> Bool {
        queue.withLock { $0.closed = true }
        writer.submit(WorkerQueue.Job(run: { [self] in
            file.withLock { file in
                if file.fd >= 0 { FileIO.closeDescriptor(file.fd) }
                file.fd = -1
            }
        }, refuse: { _ in })) // no thread: deinit closes the descriptor
        return waitForMaintenance(timeout: timeout)
    }

    /// ``close(timeout:)`` with ``closeTimeout``.
    public func close() {
        close(timeout: Self.closeTimeout)
    }

    /// How long ``close()`` waits for the writer.
    public static let closeTimeout: Duration = .seconds(10)

    /// Waits until the lines written so far and the compression and clean-up they and earlier
    /// rotations queued have finished, at most `timeout`; `false` when the deadline passed
    /// first.
    @discardableResult
    public func waitForMaintenance(timeout: Duration = RotatingFileSink.closeTimeout) -> Bool {
        let deadline = Deadline(after: timeout)
        // The writer queues maintenance while it writes: waited for once the writer is done.
        return writer.waitForJobs(until: deadline) && maintenance.waitForJobs(until: deadline)
    }

    /// Writes queued lines until none is left; runs on the writer's thread.
    private func drain() {
        while true {
            let batch: [Line]? = queue.withLock { queue in
                if queue.lines.isEmpty {
                    queue.draining = false
                    return nil
                }
                defer {
                    queue.lines = []
                    queue.bytes = 0
                }
                return queue.lines
            }
            guard let batch else { return }
            var rotated = false
            let problems = file.withLock { file -> [(String, String)] in
                var problems: [(String, String)] = []
                for line in batch { problems += write(line, to: &file, rotated: &rotated) }
                size.store(file.size, ordering: .relaxed)
                return problems
            }
            for (kind, message) in problems { failures.report(kind: kind, message) }
            if rotated { scheduleMaintenance() }
        }
    }

    /// Writes one line, rotating first when it would pass the size limit.
    private func write(_ line: Line, to file: inout File, rotated: inout Bool) -> [(String, String)] {
        var problems: [(String, String)] = []
        if file.fd >= 0, file.size > 0, line.bytes.count > configuration.maxSizeBytes - file.size {
            problems += rotate(&file, at: line.time)
            rotated = true
        }
        if file.fd < 0 {
            do throws(LoggingError) {
                let opened = try FileIO.openForAppend(configuration.path, mode: configuration.fileMode)
                file.fd = opened.fd
                file.size = opened.size
            } catch {
                problems.append(("open", error.description))
                return problems
            }
        }
        if let code = POSIXFile.writeAll(file.fd, line.bytes) {
            problems.append(("write", "write failed: \(systemErrorText(code)) (errno \(code))"))
        } else {
            file.size += line.bytes.count
        }
        return problems
    }

    /// Closes the active file and renames it to the next backup name; `write` then opens a
    /// fresh file. Runs on the writer's thread.
    private func rotate(_ state: inout File, at time: LogTimestamp) -> [(String, String)] {
        FileIO.closeDescriptor(state.fd)
        state.fd = -1
        var stamp = Timestamp.fileStamp(time)
        var sequence = 0
        if let last = state.lastStamp, stamp <= last {
            stamp = last
            sequence = state.lastSequence + 1
        }
        var target = naming.path(naming.name(stamp: stamp, sequence: sequence))
        while POSIXFile.exists(target) || POSIXFile.exists(target + ".gz") || POSIXFile.exists(target + ".gz.tmp") {
            sequence += 1
            target = naming.path(naming.name(stamp: stamp, sequence: sequence))
        }
        state.lastStamp = stamp
        state.lastSequence = sequence
        if let code = POSIXFile.rename(configuration.path, to: target) {
            return [("rotate", "cannot rename \(configuration.path) to \(target): \(systemErrorText(code)) (errno \(code))")]
        }
        return []
    }

    private func scheduleMaintenance() {
        // No thread: the pass is skipped; the next rotation or start runs one.
        maintenance.submit(WorkerQueue.Job(run: { [self] in runMaintenance() }, refuse: { [self] error in
            failures.report(kind: "thread", "cannot start the writer thread, maintenance skipped: \(error)")
        }))
    }
}
