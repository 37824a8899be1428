#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A lock around `State` with a condition variable: what `Synchronization.Mutex` lacks, for
/// the libraries' own threads that wait for work or for a result with a deadline. The one
/// place the libraries make a condition variable.
///
/// Never wait from Swift's cooperative pool: a wait blocks its thread.
///
/// ```swift
/// let jobs = WPConditionLock<[Job]>([])
/// jobs.withLock { $0.append(job) }
/// jobs.signal()
/// let next = jobs.wait(until: Deadline(after: .seconds(30)), for: { !$0.isEmpty }) { jobs, ready in
///     ready ? jobs.removeFirst() : nil
/// }
/// ```
public final class WPConditionLock<State>: @unchecked Sendable {
    // Safety of `@unchecked Sendable`: `state` is read and written only while `mutex` is held.
    // `mutex` and `condition` are allocated and initialised once in `init`, never moved, and
    // destroyed in `deinit`, which runs only when no thread holds a reference.
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    private let condition: UnsafeMutablePointer<pthread_cond_t>
    private var state: State

    /// Creates the lock around `initial`.
    public init(_ initial: State) {
        state = initial
        mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        pthread_mutex_init(mutex, nil)
        condition = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)
        condition.initialize(to: pthread_cond_t())
        #if canImport(Darwin)
        pthread_cond_init(condition, nil)
        #else
        // Timed waits measure against the monotonic clock, so a wall-clock step neither cuts
        // a wait short nor stretches it.
        var attributes = pthread_condattr_t()
        pthread_condattr_init(&attributes)
        pthread_condattr_setclock(&attributes, CLOCK_MONOTONIC)
        pthread_cond_init(condition, &attributes)
        pthread_condattr_destroy(&attributes)
        #endif
    }

    deinit {
        pthread_cond_destroy(condition)
        condition.deinitialize(count: 1)
        condition.deallocate()
        pthread_mutex_destroy(mutex)
        mutex.deinitialize(count: 1)
        mutex.deallocate()
    }

    /// Runs `body` with the lock held.
    public func withLock<Result, Failure: Error>(_ body: (inout State) throws(Failure) -> Result) throws(Failure) -> Result {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body(&state)
    }

    /// Blocks until `condition` holds or `deadline` passes (`nil`: no deadline), then runs
    /// `body` with the lock still held; its second argument tells whether `condition` holds.
    /// ``signal()`` or ``broadcast()`` after a change wakes the waiters to look again.
    public func wait<Result>(until deadline: Deadline?, for condition: (State) -> Bool,
                             then body: (inout State, _ satisfied: Bool) -> Result) -> Result {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        if let deadline {
            var until = deadline.conditionTime
            while !condition(state) {
                if pthread_cond_timedwait(self.condition, mutex, &until) == ETIMEDOUT { break }
            }
        } else {
            while !condition(state) { pthread_cond_wait(self.condition, mutex) }
        }
        return body(&state, condition(state))
    }

    /// Wakes one waiter.
    public func signal() {
        pthread_cond_signal(condition)
    }

    /// Wakes every waiter.
    public func broadcast() {
        pthread_cond_broadcast(condition)
    }
}
