import Synchronization

/// A wait for work that ends at a deadline whether or not the work does: the one shape the
/// scheduler's graceful shutdown and the front ends' last writes share.
package enum BoundedWait {
    /// Starts `work`, which calls `done` once it has finished (once or more: the first call
    /// counts), and suspends until it does or `timeout` passes on `clock`, whichever comes
    /// first. The timer runs in a task of its own, so it really sleeps even when the caller is
    /// cancelled (a shutdown path), and it is cancelled once `done` came first.
    ///
    /// - Returns: `true` when `done` came before the timeout.
    package static func completes<C: Clock>(within timeout: C.Duration, on clock: C,
                                            _ work: (_ done: @escaping @Sendable () -> Void) -> Void) async -> Bool {
        let outcome = FirstOutcome()
        let timer = Mutex<Task<Void, Never>?>(nil)
        let finished = await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
            outcome.set(continuation)
            timer.withLock { timer in
                timer = Task {
                    do { try await clock.sleep(for: timeout) } catch { return }
                    outcome.resolve(false)
                }
            }
            work { outcome.resolve(true) }
        }
        timer.withLock { $0?.cancel() }
        return finished
    }
}

/// Resumes a continuation with whichever result arrives first.
private final class FirstOutcome: Sendable {
    private let state = Mutex<(continuation: CheckedContinuation<Bool, Never>?, done: Bool)>((nil, false))

    func set(_ continuation: CheckedContinuation<Bool, Never>) {
        state.withLock { $0.continuation = continuation }
    }

    func resolve(_ value: Bool) {
        let continuation = state.withLock { state -> CheckedContinuation<Bool, Never>? in
            guard !state.done else { return nil }
            state.done = true
            defer { state.continuation = nil }
            return state.continuation
        }
        continuation?.resume(returning: value)
    }
}
