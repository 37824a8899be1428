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
/// Retention and compression run one pass at a time on a private background thread (started
/// when a pass is due, gone when the sink is idle), never on the logging path: a write only
/// pays for a `rename(2)` and an `open(2)` when it rotates. The same
/// maintenance also runs once when the sink is created, which compresses backups left
/// uncompressed by a previous crash and removes expired ones. ``waitForMaintenance()`` blocks
/// until queued work is done (tests and shutdown use it).
///
/// Writes are serialised by a lock and each record is one `write(2)` on an `O_APPEND`
/// descriptor, so concurrent callers only ever produce whole lines. I/O failures never crash
/// and never throw: the record is dropped and the first failure of each kind is reported. If
/// the file cannot be reopened after a rotation, every later write retries the open.
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

    private struct State {
        var fd: Int32
        var size: Int
        var closed = false
        /// Stamp and sequence of the newest backup, so the next name always sorts after it,
        /// even when maintenance has deleted older names or the wall clock stepped back.
        var lastStamp: String?
        var lastSequence = 0
    }

    private let state: Mutex<State>
    let naming: BackupNaming
    let now: @Sendable () -> LogTimestamp
    let failures: FailureReporter
    private let maintenance = WorkerQueue(name: "log-rotate")

    /// Opens (creating it and its directory when missing) the log file for appending.
    ///
    /// - Parameters:
    ///   - configuration: Path, size limit, retention and compression.
    ///   - encoder: How records are turned into lines.
    ///   - now: The wall clock for rotated names and backup ages; the system clock by default.
    ///   - reportFailure: Receives the first I/O failure of each kind; standard error by default.
    /// - Throws: ``LoggingError/cannotCreateDirectory(path:errno:reason:)`` or
    ///   ``LoggingError/cannotOpenFile(path:errno:reason:)`` naming the path and the reason.
    public init(configuration: Configuration, encoder: any LogEncoder,
                now: @escaping @Sendable () -> LogTimestamp = { LogTimestamp.now() },
                reportFailure: @escaping @Sendable (String) -> Void = LoggingEnvironment.writeToStandardError)
        throws(LoggingError) {
        guard !configuration.path.isEmpty else {
            throw .invalidConfiguration(key: "file_path", message: "must not be empty")
        }
        self.configuration = configuration
        self.encoder = encoder
        self.now = now
        self.naming = BackupNaming(path: configuration.path)
        self.failures = FailureReporter(sinkName: configuration.path, output: reportFailure)
        try FileIO.makeDirectories(naming.directory)
        let opened = try FileIO.openForAppend(configuration.path, mode: configuration.fileMode)
        self.state = Mutex(State(fd: opened.fd, size: opened.size))
        if let newest = listBackups().first {
            state.withLock { state in
                state.lastStamp = newest.stamp
                state.lastSequence = newest.sequence
            }
        }
        scheduleMaintenance()
    }

    // The descriptor is a resource this object owns exclusively; closing it when the last
    // reference goes away is the only way to not leak it if `close()` was never called.
    deinit {
        state.withLock { state in
            if state.fd >= 0 { FileIO.closeDescriptor(state.fd) }
        }
    }

    /// The size in bytes of the active file as the sink tracks it.
    public var currentSize: Int { state.withLock { $0.size } }

    public func write(_ record: LogRecord) {
        var line: [UInt8] = []
        encoder.encode(record, into: &line)
        let (rotated, problems) = state.withLock { state -> (Bool, [(String, String)]) in
            guard !state.closed else { return (false, []) }
            var problems: [(String, String)] = []
            var rotated = false
            if state.fd >= 0, state.size > 0, line.count > configuration.maxSizeBytes - state.size {
                problems += rotate(&state)
                rotated = true
            }
            if state.fd < 0 {
                do throws(LoggingError) {
                    let opened = try FileIO.openForAppend(configuration.path, mode: configuration.fileMode)
                    state.fd = opened.fd
                    state.size = opened.size
                } catch {
                    problems.append(("open", error.description))
                    return (rotated, problems)
                }
            }
            if let code = FileIO.writeAll(state.fd, line) {
                problems.append(("write", "write failed: \(FileIO.reason(code)) (errno \(code))"))
            } else {
                state.size += line.count
            }
            return (rotated, problems)
        }
        for (kind, message) in problems { failures.report(kind: kind, message) }
        if rotated { scheduleMaintenance() }
    }

    /// Closes the file and waits for queued compression and clean-up. Later writes are dropped.
    public func close() {
        state.withLock { state in
            if state.fd >= 0 { FileIO.closeDescriptor(state.fd) }
            state.fd = -1
            state.closed = true
        }
        waitForMaintenance()
    }

    /// Blocks until compression and clean-up queued so far have finished.
    public func waitForMaintenance() {
        _ = maintenance.waitForJobs(until: Deadline(after: .seconds(Int64(Int32.max))))
    }

    /// Closes the active file and renames it to the next backup name; `write` then opens a
    /// fresh file. Runs under the lock.
    private func rotate(_ state: inout State) -> [(String, String)] {
        FileIO.closeDescriptor(state.fd)
        state.fd = -1
        var stamp = Timestamp.fileStamp(now())
        var sequence = 0
        if let last = state.lastStamp, stamp <= last {
            stamp = last
            sequence = state.lastSequence + 1
        }
        var target = naming.path(naming.name(stamp: stamp, sequence: sequence))
        while FileIO.exists(target) || FileIO.exists(target + ".gz") || FileIO.exists(target + ".gz.tmp") {
            sequence += 1
            target = naming.path(naming.name(stamp: stamp, sequence: sequence))
        }
        state.lastStamp = stamp
        state.lastSequence = sequence
        guard rename(configuration.path, target) == 0 else {
            let code = errno
            return [("rotate", "cannot rename \(configuration.path) to \(target): \(FileIO.reason(code)) (errno \(code))")]
        }
        return []
    }

    private func scheduleMaintenance() {
        // No thread: the pass is skipped; the next rotation or start runs one.
        maintenance.submit(WorkerQueue.Job(run: { [self] in runMaintenance() }, refuse: { [self] error in
            failures.report(kind: "thread", "cannot start the maintenance thread, pass skipped: \(error)")
        }))
    }
}
