#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import Synchronization
import WPPOSIX
import WPRuntime

/// The process-wide relay behind every signal type of this module: a signal handler that
/// writes the signal number into a pipe (the only thing a handler may safely do), and a thread
/// of its own (`signal-relay`, started through `NamedThread`) that blocks reading the pipe and
/// hands each number to the subscribers of that signal.
///
/// A real handler rather than a Dispatch signal source: on Linux a Dispatch signal source
/// only sees signals the receiving thread blocks, which a library cannot arrange for threads
/// it did not create. A blocking read on a plain thread rather than a Dispatch read source:
/// nothing of the relay runs on Dispatch's threads.
///
/// The pipe and the thread are made on the first subscription and live as long as the
/// process. When the system refuses them, no handler is installed (the signals keep their
/// action, so a termination signal still ends the process) and the next subscription tries
/// again.
final class SignalRelay: Sendable {
    static let shared = SignalRelay()

    private struct Subscriber {
        var signals: Set<Int32>
        var deliver: @Sendable (Int32) -> Void
    }

    private struct State {
        var subscribers: [Int: Subscriber] = [:]
        var nextID = 0
        /// The action each handled signal had before, restored when nobody watches it.
        var previous: [Int32: sigaction] = [:]
        /// Whether the pipe exists and its reader runs.
        var reading = false
    }

    private let state = Mutex(State())

    private init() {}

    /// Registers `deliver` for `signals`, installing the handler on signals nobody watched yet.
    func subscribe(_ signals: [Int32], deliver: @escaping @Sendable (Int32) -> Void) -> Int {
        state.withLock { state in
            state.nextID += 1
            state.subscribers[state.nextID] = Subscriber(signals: Set(signals), deliver: deliver)
            if !state.reading { state.reading = startReading() }
            if state.reading {
                // Every watched signal, not only these: the ones of subscriptions made while
                // the relay could not start get their handler too.
                let watched = state.subscribers.values.reduce(into: Set<Int32>()) { $0.formUnion($1.signals) }
                for number in watched where state.previous[number] == nil {
                    var action = sigaction()
                    #if canImport(Darwin)
                    action.__sigaction_u.__sa_handler = relaySignal
                    #else
                    action.__sigaction_handler.sa_handler = relaySignal
                    #endif
                    action.sa_flags = SA_RESTART
                    var old = sigaction()
                    if sigaction(number, &action, &old) == 0 { state.previous[number] = old }
                }
            }
            return state.nextID
        }
    }

    /// Removes a subscriber; signals nobody watches any more get their previous action back.
    func unsubscribe(_ id: Int) {
        state.withLock { state in
            guard let gone = state.subscribers.removeValue(forKey: id) else { return }
            for number in gone.signals where !state.subscribers.values.contains(where: { $0.signals.contains(number) }) {
                if var old = state.previous.removeValue(forKey: number) { sigaction(number, &old, nil) }
            }
        }
    }

    /// Makes the pipe and starts the thread reading it; `false` when the system refuses either.
    private func startReading() -> Bool {
        var fds: [Int32] = [-1, -1]
        guard pipe(&fds) == 0 else { return false }
        for fd in fds { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
        // A full pipe drops the signal in the handler instead of blocking it.
        _ = fcntl(fds[1], F_SETFL, fcntl(fds[1], F_GETFL) | O_NONBLOCK)
        let readFD = fds[0]
        do {
            try NamedThread.start(name: "signal-relay") { [self] in readLoop(readFD) }
        } catch {
            close(fds[0])
            close(fds[1])
            return false
        }
        signalPipeWrite.store(fds[1], ordering: .releasing)
        return true
    }

    /// Blocks reading signal numbers and delivers them, for the life of the process.
    private func readLoop(_ fd: Int32) {
        var bytes = [UInt8](repeating: 0, count: 64)
        while true {
            guard case .read(let count) = POSIXFile.readChunk(fd, into: &bytes), count > 0 else {
                return   // the pipe is never closed: not expected
            }
            for byte in bytes.prefix(count) { deliver(Int32(byte)) }
        }
    }

    private func deliver(_ number: Int32) {
        let targets = state.withLock { state in
            state.subscribers.values.filter { $0.signals.contains(number) }.map(\.deliver)
        }
        for deliver in targets { deliver(number) }
    }
}

/// The write end of the relay's pipe, read by the signal handler (an atomic load is
/// async-signal-safe; the handler touches nothing else but `write`).
private let signalPipeWrite = Atomic<Int32>(-1)

private func relaySignal(_ number: Int32) {
    let fd = signalPipeWrite.load(ordering: .acquiring)
    guard fd >= 0 else { return }
    let savedErrno = errno   // the interrupted code may be about to read it
    var byte = UInt8(truncatingIfNeeded: number)
    _ = write(fd, &byte, 1)
    errno = savedErrno
}
