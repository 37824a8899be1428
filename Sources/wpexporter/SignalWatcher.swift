#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import Synchronization
import WPScheduler

/// Turns SIGTERM and SIGINT into an awaitable event, through WPScheduler's signal relay (a
/// real handler writing into a pipe; on Linux a Dispatch signal source only sees signals the
/// receiving thread blocks, which cannot be arranged for threads the process did not create).
///
/// The signals' default action is replaced while the watcher exists, so the first signal does
/// not kill the process: ``first()`` returns and the exporter shuts down gracefully. Every
/// further signal calls the handler given to ``onRepeat(_:)`` (the exporter persists energy and
/// exits at once). Only `main` creates one: it changes process-wide signal dispositions.
final class SignalWatcher: Sendable {
    private let events = SignalEvents()
    private let subscription: SignalSubscription

    /// Starts watching `signals` (SIGTERM and SIGINT by default).
    init(signals: [Int32] = [SIGTERM, SIGINT]) {
        let events = self.events
        subscription = SignalSubscription(signals) { events.received($0) }
    }

    /// Sets what happens on the second and later signals.
    func onRepeat(_ handler: @escaping @Sendable (Int32) -> Void) { events.onRepeat(handler) }

    /// Returns when the first signal arrived (at once if it already did) or the task is cancelled.
    func first() async { await events.first() }
}

/// The signal count, the tasks waiting for the first one and the handler for later ones.
final class SignalEvents: Sendable {
    private struct State {
        var received = 0
        var cancelled = false
        var waiters: [CheckedContinuation<Void, Never>] = []
        var repeatHandler: (@Sendable (Int32) -> Void)?
    }

    private let state = Mutex(State())

    func onRepeat(_ handler: @escaping @Sendable (Int32) -> Void) {
        state.withLock { $0.repeatHandler = handler }
    }

    func first() async {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let done = state.withLock { state -> Bool in
                    if state.received > 0 || state.cancelled { return true }
                    state.waiters.append(continuation)
                    return false
                }
                if done { continuation.resume() }
            }
        } onCancel: {
            state.withLock { $0.cancelled = true }
            resumeAll()
        }
    }

    /// `times` signals arrived: the first wakes the waiters, any later one runs the repeat handler.
    func received(_ number: Int32, times: Int = 1) {
        let (before, handler) = state.withLock { state in
            defer { state.received += times }
            return (state.received, state.repeatHandler)
        }
        if before == 0 { resumeAll() }
        if before + times > 1 { handler?(number) }
    }

    private func resumeAll() {
        let waiters = state.withLock { state in
            defer { state.waiters = [] }
            return state.waiters
        }
        for waiter in waiters { waiter.resume() }
    }
}
