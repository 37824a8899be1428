import Synchronization

/// A wait for work that ends at a deadline whether or not the work does: the one shape the
/// scheduler's graceful shutdown, the front ends' last writes and the energy state writer's
/// waits for a save share.
package enum BoundedWait {
    /// Starts `work`, which calls `done` once it has finished (once or more: the first call
    /// counts), and suspends until it does or `timeout` passes on `clock`, whichever comes
    /// first. The timer runs in a task of its own, so it really sleeps even when the caller is
    /// cancelled (a shutdown path), and it is cancelled once `done` came first.
    ///
    /// - Returns: `true` when `done` came before the timeout.
    package static func completes<C: Clock>(within timeout: C.Duration, on clock: C,
                                            _ work: (_ done: @escaping @Sendable () -> Void) -> Void) async -> Bool {
        await outcome(within: timeout, on: clock, orElse: false) { done in work { done(true) } }
    }

    /// Starts `work`, which calls `done` with its result (the first call counts), and
    /// suspends until it does or `timeout` passes on `clock`: then `afterTimeout` runs (to
    /// withdraw what `work` registered, so nothing is kept for a result no one takes) and
    /// `timedOut` is the result.
    package static func outcome<C: Clock, T: Sendable>(
        within timeout: C.Duration, on clock: C, orElse timedOut: T, afterTimeout: @escaping @Sendable () -> Void = {},
        _ work: (_ done: @escaping @Sendable (T) -> Void) -> Void) async -> T {
        let first = FirstOutcome<T>()
        let timer = Mutex<Task<Void, Never>?>(nil)
        let result = await withCheckedContinuation { (continuation: CheckedContinuation<T, Never>) in
            first.set(continuation)
            timer.withLock { timer in
                timer = Task {
                    do { try await clock.sleep(for: timeout) } catch { return }
                    first.resolve(timedOut, first: afterTimeout)
                }
            }
            work { first.resolve($0) }
        }
        timer.withLock { $0?.cancel() }
        return result
    }
}

/// Resumes a continuation with whichever result arrives first.
private final class FirstOutcome<T: Sendable>: Sendable {
    private let state = Mutex<(continuation: CheckedContinuation<T, Never>?, done: Bool)>((nil, false))

    func set(_ continuation: CheckedContinuation<T, Never>) {
        state.withLock { $0.continuation = continuation }
    }

    /// Resumes with `value` if nothing came first, after running `first` (so the waiter wakes
    /// to what `first` did).
    func resolve(_ value: T, first: () -> Void = {}) {
        let continuation = state.withLock { state -> CheckedContinuation<T, Never>? in
            guard !state.done else { return nil }
            state.done = true
            defer { state.continuation = nil }
            return state.continuation
        }
        guard let continuation else { return }
        first()
        continuation.resume(returning: value)
    }
}
