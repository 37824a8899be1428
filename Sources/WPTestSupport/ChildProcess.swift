import WPPOSIX
import FoundationEssentials
import Glibc
import Synchronization
package import WPCSystem
import WPRuntime
import WPTestThreads

/// A program run as a child process by a test or a benchmark: `posix_spawn`, its output read
/// by blocking reads on threads of its own, its exit reaped by `waitpid` on another.
///
/// Neither Foundation's `Process` nor `FileHandle.readabilityHandler` is used: both register
/// the pipes with libdispatch's event loop, whose teardown races the descriptor's close and
/// can crash the whole test process in `_dispatch_event_loop_drain` (a use-after-free of an
/// epoll "muxnote"; seen here during `RuntimeBinaryTests`). A blocking read registers nothing.
///
/// ```swift
/// let child = try ChildProcess("/usr/bin/env", ["echo", "hi"])
/// let status = await child.exitStatus()       // 0
/// child.standardOutput                        // "hi\n"
/// ```
package final class ChildProcess: Sendable {
    /// The child could not be started.
    package struct Failure: Error, CustomStringConvertible {
        package let description: String
    }

    /// Where the child's standard error goes.
    package enum ErrorOutput: Sendable {
        /// Collected on its own (``standardError``).
        case separate
        /// Into the same pipe as standard output.
        case merged
        /// To `/dev/null`.
        case discarded
    }

    /// Text the child wrote to one pipe so far, and whether the pipe ended.
    private struct Stream {
        var bytes: [UInt8] = []
        var ended = false
    }

    private struct Exit {
        var status: Int32?
        var waiters: [CheckedContinuation<Int32, Never>] = []
    }

    /// The child's process ID.
    package let pid: pid_t
    private let output = WPConditionLock(Stream())
    private let errors = WPConditionLock(Stream())
    private let exit = WPConditionLock(Exit())
    /// The write end of the child's standard input (-1: none, or closed).
    private let input: Mutex<Int32>

    /// Starts `executable` (a path) with `arguments`.
    ///
    /// - Parameters:
    ///   - environment: the child's whole environment (plus ``inheritedVariables`` when this
    ///     process has them); `nil` passes this process's on.
    ///   - directory: the child's working directory; `nil` keeps this one.
    ///   - standardInput: `true` gives the child a pipe written with ``write(_:)``; otherwise
    ///     it reads `/dev/null`.
    ///   - errorOutput: what becomes of standard error.
    ///   - ownProcessGroup: puts the child in a process group of its own (Ctrl-C in a terminal
    ///     then does not reach it).
    package init(_ executable: String, _ arguments: [String], environment: [String: String]? = nil,
                directory: String? = nil, standardInput: Bool = false, errorOutput: ErrorOutput = .separate,
                ownProcessGroup: Bool = false) throws(Failure) {
        var opened: [Int32] = []
        func pipeEnds() throws(Failure) -> (read: Int32, write: Int32) {
            var ends: [Int32] = [-1, -1]
            let failed = cs_pipe_cloexec(&ends)
            guard failed == 0 else {
                let reason = systemErrorText(failed)
                for fd in opened { close(fd) }
                throw Failure(description: "cannot create a pipe for \(executable): \(reason)")
            }
            opened += ends
            return (ends[0], ends[1])
        }
        let null = open("/dev/null", O_RDWR | O_CLOEXEC)
        guard null >= 0 else { throw Failure(description: "cannot open /dev/null: \(systemErrorText(errno))") }
        opened.append(null)
        let out = try pipeEnds()
        let err: (read: Int32, write: Int32)? = errorOutput == .separate ? try pipeEnds() : nil
        let inPipe: (read: Int32, write: Int32)? = standardInput ? try pipeEnds() : nil
        let errorTarget: Int32
        switch errorOutput {
        case .separate: errorTarget = err?.write ?? null
        case .merged: errorTarget = out.write
        case .discarded: errorTarget = null
        }

        let environmentLines = Self.childEnvironment(environment).map { "\($0.key)=\($0.value)" }
        var spawned: pid_t = 0
        let status = Self.withCStrings([executable] + arguments) { argv in
            Self.withCStrings(environmentLines) { envp in
                cs_spawn(executable, argv, envp, directory, inPipe?.read ?? null, out.write, errorTarget,
                         ownProcessGroup ? 1 : 0, &spawned)
            }
        }
        // The child holds its own copies now; the parent keeps only its ends.
        close(null)
        close(out.write)
        if let err { close(err.write) }
        if let inPipe { close(inPipe.read) }
        guard status == 0 else {
            close(out.read)
            if let err { close(err.read) }
            if let inPipe { close(inPipe.write) }
            throw Failure(description: "cannot start \(executable): \(systemErrorText(status))")
        }
        pid = spawned
        input = Mutex(inPipe?.write ?? -1)
        Self.drain(out.read, into: output, name: "child-stdout")
        if let err {
            Self.drain(err.read, into: errors, name: "child-stderr")
        } else {
            errors.withLock { $0.ended = true }
        }
        let exit = self.exit, pid = spawned, streams = [output, errors]
        // A test run ended for a stall (``TestWatchdog``) leaves no child behind.
        let watched = TestWatchdog.shared.onStall { kill(pid, SIGKILL) }
        do throws(ThreadStartError) {
            try NamedThread.start(name: "child-reaper") {
                Self.reap(pid, into: exit, after: streams)
                TestWatchdog.shared.withdraw(watched)
            }
        } catch {
            TestWatchdog.shared.withdraw(watched)
            kill(pid, SIGKILL)
            Self.reap(pid, into: exit, after: streams)
            throw Failure(description: "cannot watch \(executable): \(error)")
        }
    }

    /// A child still running when the last reference goes is killed, so a test that gave up
    /// early leaves no process holding ports, pipes or directories.
    deinit {
        if isRunning { kill(pid, SIGKILL) }
        closeInput()
    }

    /// What the child wrote to standard output so far (and standard error, when merged).
    package var standardOutput: String { output.withLock { String(decoding: $0.bytes, as: UTF8.self) } }
    /// The bytes the child wrote to standard output so far.
    package var standardOutputBytes: [UInt8] { output.withLock { $0.bytes } }
    /// What the child wrote to standard error so far.
    package var standardError: String { errors.withLock { String(decoding: $0.bytes, as: UTF8.self) } }

    /// Whether the child has not been reaped yet.
    package var isRunning: Bool { exit.withLock { $0.status == nil } }

    /// The exit status once the child ended: its exit code, or 128 + the signal that ended it.
    package var status: Int32? { exit.withLock { $0.status } }

    /// Sends `number` to the child (nothing once it was reaped: its PID may be reused).
    package func signal(_ number: Int32) {
        exit.withLock { state in
            if state.status == nil { _ = kill(pid, number) }
        }
    }

    /// Writes `bytes` to the child's standard input (given with `standardInput: true`).
    package func write(_ bytes: [UInt8]) throws(Failure) {
        let fd = input.withLock { $0 }
        guard fd >= 0 else { throw Failure(description: "the child's standard input is not a pipe, or was closed") }
        var offset = 0
        while offset < bytes.count {
            let written = bytes[offset...].withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
            if written < 0 && errno == EINTR { continue }
            guard written > 0 else { throw Failure(description: "writing to the child: \(systemErrorText(errno))") }
            offset += written
        }
    }

    /// Closes the child's standard input (it reads end-of-file).
    package func closeInput() {
        let fd = input.withLock { fd in
            defer { fd = -1 }
            return fd
        }
        if fd >= 0 { close(fd) }
    }

    /// Suspends until the child exited (and its pipes ended, unless a process it started still
    /// holds them after 5 s) and returns ``status``; a child still running after
    /// `limit` (a safety net against a hung child, not a timing assertion) is killed first.
    package func exitStatus(limit: Duration = .seconds(60)) async -> Int32 {
        let killer = Task { [self] in
            try await Task.sleep(for: limit)
            signal(SIGKILL)
        }
        defer { killer.cancel() }
        return await withCheckedContinuation { (continuation: CheckedContinuation<Int32, Never>) in
            let status = exit.withLock { state -> Int32? in
                if state.status == nil { state.waiters.append(continuation) }
                return state.status
            }
            if let status { continuation.resume(returning: status) }
        }
    }

    /// Blocks until the child exited and both its pipes ended, or `limit` passed (`nil`: no
    /// limit); returns ``status`` (`nil` at the limit). It blocks the calling thread: for
    /// commands that end at once, or from a thread of the caller's own.
    package func waitUntilDone(limit: Duration? = nil) -> Int32? {
        let deadline = limit.map { Deadline(after: $0) }
        guard output.wait(until: deadline, for: { $0.ended }, then: { _, ended in ended }),
              errors.wait(until: deadline, for: { $0.ended }, then: { _, ended in ended }) else { return nil }
        return exit.wait(until: deadline, for: { $0.status != nil }) { state, _ in state.status }
    }

    /// Blocks until standard output satisfies `condition` (given the text so far), the output
    /// ended, or `limit` passed (a safety net, not a timing assertion); returns the text then
    /// and whether `condition` held.
    package func waitForOutput(limit: Duration = .seconds(60), _ condition: @escaping (String) -> Bool) -> (text: String, satisfied: Bool) {
        output.wait(until: Deadline(after: limit), for: { $0.ended || condition(String(decoding: $0.bytes, as: UTF8.self)) }) { stream, _ in
            let text = String(decoding: stream.bytes, as: UTF8.self)
            return (text, condition(text))
        }
    }

    /// Runs a command to completion on this thread: its status (exit code, or 128 + signal)
    /// and its two outputs. A command not done after `limit` is killed.
    package static func run(_ executable: String, _ arguments: [String], environment: [String: String]? = nil,
                           directory: String? = nil, errorOutput: ErrorOutput = .separate,
                           limit: Duration = .seconds(120)) throws(Failure) -> (status: Int32, output: String, error: String) {
        let child = try ChildProcess(executable, arguments, environment: environment, directory: directory, errorOutput: errorOutput)
        var status = child.waitUntilDone(limit: limit)
        if status == nil {
            child.signal(SIGKILL)
            status = child.waitUntilDone()
        }
        return (status ?? -1, child.standardOutput, child.standardError)
    }

    /// Finds `name` on `PATH`, then in the usual directories.
    package static func executable(named name: String) -> String? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? ""
        let directories = path.split(separator: ":").map(String.init) + ["/usr/local/bin", "/usr/bin", "/bin"]
        return directories.map { "\($0)/\(name)" }.first { access($0, X_OK) == 0 }
    }

    /// What a test runner sets for every program of a run (a preloaded library and the
    /// sanitizer's options, as CI's ThreadSanitizer step does): passed on to a child given an
    /// environment of its own too, so the programs a sanitized test starts are covered alike.
    static let inheritedVariables = ["LD_PRELOAD", "TSAN_OPTIONS"]

    /// `environment` (this process's when `nil`) with ``inheritedVariables`` carried over.
    static func childEnvironment(_ environment: [String: String]?) -> [String: String] {
        let current = ProcessInfo.processInfo.environment
        guard var result = environment else { return current }
        for name in inheritedVariables where result[name] == nil { result[name] = current[name] }
        return result
    }

    private static func drain(_ fd: Int32, into stream: WPConditionLock<Stream>, name: String) {
        let read: @Sendable () -> Void = {
            var buffer = [UInt8](repeating: 0, count: 16 * 1024)
            while true {
                let count = buffer.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
                if count < 0 && errno == EINTR { continue }
                guard count > 0 else { break }
                stream.withLock { $0.bytes += buffer[0..<count] }
                stream.broadcast()
            }
            close(fd)
            stream.withLock { $0.ended = true }
            stream.broadcast()
        }
        do throws(ThreadStartError) {
            try NamedThread.start(name: name, read)
        } catch {
            close(fd) // the child then gets SIGPIPE or EPIPE on writing; nothing is collected
            stream.withLock { $0.ended = true }
        }
    }

    private static func reap(_ pid: pid_t, into exit: WPConditionLock<Exit>, after streams: [WPConditionLock<Stream>]) {
        var raw: Int32 = 0
        while waitpid(pid, &raw, 0) < 0 && errno == EINTR {}
        // The output is complete once the pipes end, which follows the exit at once unless a
        // process the child started still holds them.
        let drained = Deadline(after: .seconds(5))
        for stream in streams { stream.wait(until: drained, for: { $0.ended }) { _, _ in } }
        let low = raw & 0x7f
        let status = low == 0 ? (raw >> 8) & 0xff : 128 + low
        let waiters = exit.withLock { state in
            state.status = status
            defer { state.waiters = [] }
            return state.waiters
        }
        exit.broadcast()
        for waiter in waiters { waiter.resume(returning: status) }
    }

    private static func withCStrings<R>(_ strings: [String], _ body: (UnsafePointer<UnsafeMutablePointer<CChar>?>) -> R) -> R {
        let pointers: [UnsafeMutablePointer<CChar>?] = strings.map { strdup($0) } + [nil]
        defer { for pointer in pointers { free(pointer) } }
        return pointers.withUnsafeBufferPointer { body($0.baseAddress!) }
    }
}
