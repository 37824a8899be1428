import WPRuntime
/// One log event as handed to a ``LogSink``: already filtered by level and redacted.
public struct LogRecord: Sendable, Equatable {
    /// Wall-clock time the event was logged.
    public var time: LogTimestamp
    /// The record's severity.
    public var level: LogLevel
    /// The message, already redacted.
    public var message: String
    /// The logger's label, usually the module or component name (`client`, `server`).
    public var logger: String
    /// Structured fields, already redacted.
    public var fields: LogFields
    /// `#fileID` of the call site (`Module/File.swift`); written as `caller` when enabled.
    public var file: String
    /// `#line` of the call site.
    public var line: UInt

    /// Creates a record; ``WPLogger`` does this for you.
    public init(time: LogTimestamp, level: LogLevel, message: String, logger: String,
                fields: LogFields = [:], file: String = "", line: UInt = 0) {
        self.time = time
        self.level = level
        self.message = message
        self.logger = logger
        self.fields = fields
        self.file = file
        self.line = line
    }
}

/// Where log records go (stdout, a rotating file, memory in tests).
///
/// Contract: `write` may be called from any thread at any time, concurrently; a sink
/// serialises its own output so records never interleave. It must not throw or crash:
/// an I/O failure is swallowed (and reported on stderr at most once per failure kind).
public protocol LogSink: Sendable {
    /// Writes one record. Never throws, never crashes; may be called concurrently.
    func write(_ record: LogRecord)

    /// Finishes pending background work (such as compressing a rotated file) and releases
    /// resources; records written afterwards may be dropped. Call it once at shutdown. The
    /// default implementation does nothing.
    func close()

    /// Waits, at most `timeout`, until records written before have left the process (a sink
    /// that writes from a thread of its own); `false` when they had not. The default
    /// implementation returns `true` at once: the sink writes on the caller's thread.
    func flush(timeout: Duration) -> Bool
}

extension LogSink {
    /// Does nothing: a sink with nothing to finish or release needs no closing.
    public func close() {}

    /// Returns `true` at once: a sink that writes on the caller's thread has nothing in flight.
    public func flush(timeout: Duration) -> Bool { true }

    /// ``close()`` on a thread of its own, for async code: closing may wait (up to a second for
    /// a stream's reader, longer for a rotated file being compressed), and that wait must not
    /// hold one of Swift's cooperative threads. Closes on the calling thread only when no
    /// thread can be started.
    public func closeOffThePool() async {
        do {
            try await NamedThread.run(name: "log-close") { self.close() }
        } catch {
            close()
        }
    }

    /// ``flush(timeout:)`` on a thread of its own, for async code (see ``closeOffThePool()``);
    /// `false` also when no thread could be started.
    public func flushOffThePool(timeout: Duration) async -> Bool {
        (try? await NamedThread.run(name: "log-flush") { self.flush(timeout: timeout) }) ?? false
    }
}
