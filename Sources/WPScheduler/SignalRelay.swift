import Dispatch
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import Synchronization

/// The process-wide relay behind ``TerminationSignals``: a signal handler that writes the
/// signal number into a pipe (the only thing a handler may safely do), and a Dispatch read
/// source on the pipe that hands each number to the subscribers of that signal.
///
/// A real handler rather than a Dispatch signal source: on Linux a Dispatch signal source
/// only sees signals the receiving thread blocks, which a library cannot arrange for threads
/// it did not create.
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
    }

    private let state = Mutex(State())
    // The read source is not Sendable; it is created once and only kept alive here.
    private nonisolated(unsafe) let source: (any DispatchSourceRead)?

    private init() {
        var fds: [Int32] = [-1, -1]
        guard pipe(&fds) == 0 else {
            source = nil
            return
        }
        for fd in fds { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
        _ = fcntl(fds[1], F_SETFL, fcntl(fds[1], F_GETFL) | O_NONBLOCK)
        signalPipeWrite.store(fds[1], ordering: .releasing)
        let readFD = fds[0]
        let source = DispatchSource.makeReadSource(fileDescriptor: readFD, queue: DispatchQueue(label: "WPScheduler.signals"))
        self.source = source
        source.setEventHandler { [weak self] in
            var bytes = [UInt8](repeating: 0, count: 64)
            let count = read(readFD, &bytes, bytes.count)
            guard count > 0, let self else { return }
            for byte in bytes.prefix(count) { self.deliver(Int32(byte)) }
        }
        source.resume()
    }

    /// Registers `deliver` for `signals`, installing the handler on signals nobody watched yet.
    func subscribe(_ signals: [Int32], deliver: @escaping @Sendable (Int32) -> Void) -> Int {
        state.withLock { state in
            for number in Set(signals) where state.previous[number] == nil {
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
            state.nextID += 1
            state.subscribers[state.nextID] = Subscriber(signals: Set(signals), deliver: deliver)
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
