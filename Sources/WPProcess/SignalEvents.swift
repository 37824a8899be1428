import Synchronization

/// What ``GracefulTermination`` counts: the first signal, the tasks waiting for it and the
/// handler for later ones.
final class SignalEvents: Sendable {
    private struct State {
        var received = 0
        var first: Int32?
        var cancelled = false
        var waiters: [CheckedContinuation<Void, Never>] = []
        var repeatHandler: (@Sendable (Int32) -> Void)?
    }

    private let state = Mutex(State())

    func onRepeat(_ handler: @escaping @Sendable (Int32) -> Void) {
        state.withLock { $0.repeatHandler = handler }
    }

    /// The first signal, once it arrived; `nil` when the waiting task is cancelled first.
    @discardableResult
    func first() async -> Int32? {
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
        return state.withLock { $0.first }
    }

    /// `times` signals arrived: the first wakes the waiters, any later one runs the repeat handler.
    func received(_ number: Int32, times: Int = 1) {
        let (before, handler) = state.withLock { state in
            defer { state.received += times }
            if state.received == 0 { state.first = number }
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
