#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import Synchronization
import WPStorage

/// Writes the energy state on a thread of its own, always the latest one asked for.
///
/// The meter hands it a copy of its state with a generation number (which grows with every
/// change) and returns at once: a save never runs on the caller's thread, so a disk whose
/// `fsync` takes seconds holds this thread only, never a collection or the Swift concurrency
/// pool. A newer state replaces one still queued (only the latest matters, and each save writes
/// the whole state), so a stuck disk costs one pending copy, not a queue that grows. Saves never
/// overlap nor run out of order.
///
/// The thread starts when a state is queued and no thread runs, and exits when nothing is
/// queued, so an idle meter owns none. Callers wait for the save of a generation with
/// ``waitUntilSaved(_:timeout:)`` (blocking, with a deadline) or ``saved(_:timeout:)``
/// (suspending); both give up at their deadline while the save goes on.
final class StateWriter: @unchecked Sendable {
    /// How a wait ended.
    enum Outcome: Sendable, Equatable {
        /// A save covering the generation succeeded.
        case saved
        /// The save covering the generation failed.
        case failed(StorageError)
        /// The deadline passed first; the save goes on.
        case timedOut
    }

    /// Saves a state; returns its failure, if any. Runs on the writer's thread.
    typealias Save = @Sendable (EnergyState) -> StorageError?
    /// Told of a save's outcome.
    typealias Completion = @Sendable (_ generation: UInt64, _ failure: StorageError?) -> Void

    private struct Job {
        var state: EnergyState
        var generation: UInt64
        var completion: Completion
    }

    private struct Waiter {
        var id: UInt64
        var generation: UInt64
        var continuation: CheckedContinuation<Outcome, Never>
    }

    // Safety of `@unchecked Sendable`: every `var` below is read and written only while `mutex`
    // is held. `mutex` and `condition` are allocated once in `init`, never moved, and destroyed
    // in `deinit`, which runs only when no thread holds a reference (a running thread retains
    // the writer).
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    private let condition: UnsafeMutablePointer<pthread_cond_t>
    private var pending: Job?
    private var running = false
    /// The highest generation queued so far (queued, in progress or done).
    private var queued: UInt64 = 0
    /// The highest generation whose save attempt ended, and how.
    private var finished: UInt64 = 0
    private var lastFailure: StorageError?
    private var failedGeneration: UInt64 = 0
    private var waiters: [Waiter] = []
    private var nextWaiter: UInt64 = 0
    private let save: Save

    init(save: @escaping Save) {
        self.save = save
        mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        pthread_mutex_init(mutex, nil)
        condition = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)
        condition.initialize(to: pthread_cond_t())
        #if canImport(Darwin)
        pthread_cond_init(condition, nil)
        #else
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

    /// Queues `state` of `generation` and returns at once. A generation not above the newest
    /// one queued is ignored (a caller that copied its state earlier lost the race to a newer
    /// copy); a queued, not yet started state is replaced.
    ///
    /// - Parameters:
    ///   - state: the state to save.
    ///   - generation: its generation.
    ///   - completion: told of the save's outcome, on the writer's thread, before any waiter
    ///     wakes (not called when the state is replaced before its save started).
    /// - Returns: whether the state was queued.
    @discardableResult
    func submit(_ state: EnergyState, generation: UInt64, completion: @escaping Completion) -> Bool {
        pthread_mutex_lock(mutex)
        guard generation > queued else {
            pthread_mutex_unlock(mutex)
            return false
        }
        queued = generation
        pending = Job(state: state, generation: generation, completion: completion)
        let start = !running
        running = true
        pthread_mutex_unlock(mutex)
        if start && !startThread() { drain() }
        return true
    }

    /// The newest generation queued so far.
    var newestQueued: UInt64 {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return queued
    }

    /// Blocks until a save covering `generation` ended, or `timeout` passed (`nil`: no
    /// deadline). Never call it from the Swift concurrency pool; use ``saved(_:timeout:)``.
    func waitUntilSaved(_ generation: UInt64, timeout: Duration?) -> Outcome {
        var deadline = timespec()
        if let timeout {
            clock_gettime(CLOCK_MONOTONIC, &deadline)
            let (seconds, attoseconds) = max(timeout, .zero).components
            let nanoseconds = Int(deadline.tv_nsec) + Int(attoseconds / 1_000_000_000)
            deadline.tv_sec += time_t(seconds) + time_t(nanoseconds / 1_000_000_000)
            deadline.tv_nsec = Int(nanoseconds % 1_000_000_000)
        }
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        while true {
            if let outcome = outcome(for: generation) { return outcome }
            if timeout == nil {
                pthread_cond_wait(condition, mutex)
            } else if pthread_cond_timedwait(condition, mutex, &deadline) == ETIMEDOUT {
                return outcome(for: generation) ?? .timedOut
            }
        }
    }

    /// Suspends until a save covering `generation` ended, or `timeout` passed on the
    /// continuous clock. The calling thread is never blocked.
    func saved(_ generation: UInt64, timeout: Duration) async -> Outcome {
        let timer = Mutex<Task<Void, Never>?>(nil)
        let result = await withCheckedContinuation { (continuation: CheckedContinuation<Outcome, Never>) in
            let (id, ready) = withLock { () -> (UInt64, Outcome?) in
                if let outcome = outcome(for: generation) { return (0, outcome) }
                nextWaiter += 1
                waiters.append(Waiter(id: nextWaiter, generation: generation, continuation: continuation))
                return (nextWaiter, nil)
            }
            if let ready {
                continuation.resume(returning: ready)
                return
            }
            timer.withLock { timer in
                timer = Task {
                    try? await Task.sleep(for: timeout)
                    self.resumeWaiter(id, with: .timedOut)
                }
            }
        }
        timer.withLock { $0?.cancel() }
        return result
    }

    /// The outcome of `generation` if known. Called with `mutex` held.
    private func outcome(for generation: UInt64) -> Outcome? {
        if finished >= generation {
            if let lastFailure, failedGeneration >= generation { return .failed(lastFailure) }
            return .saved
        }
        return nil
    }

    private func resumeWaiter(_ id: UInt64, with outcome: Outcome) {
        let waiter = withLock { () -> Waiter? in
            guard let index = waiters.firstIndex(where: { $0.id == id }) else { return nil }
            return waiters.remove(at: index)
        }
        waiter?.continuation.resume(returning: outcome)
    }

    /// Saves queued states until none is left, then marks the writer idle.
    private func drain() {
        while true {
            pthread_mutex_lock(mutex)
            guard let job = pending else {
                running = false
                pthread_mutex_unlock(mutex)
                return
            }
            pending = nil
            pthread_mutex_unlock(mutex)
            let failure = save(job.state)
            job.completion(job.generation, failure)
            let woken = withLock { () -> [(Waiter, Outcome)] in
                finished = max(finished, job.generation)
                if let failure {
                    lastFailure = failure
                    failedGeneration = job.generation
                } else {
                    lastFailure = nil
                }
                pthread_cond_broadcast(condition)
                var woken: [(Waiter, Outcome)] = []
                waiters.removeAll { waiter in
                    guard let outcome = outcome(for: waiter.generation) else { return false }
                    woken.append((waiter, outcome))
                    return true
                }
                return woken
            }
            for (waiter, outcome) in woken { waiter.continuation.resume(returning: outcome) }
        }
    }

    private func withLock<T>(_ body: () -> T) -> T {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return body()
    }

    /// Starts a detached thread running ``drain()``; `false` when none could be created (the
    /// caller then saves on its own thread: slower, but nothing is lost).
    private func startThread() -> Bool {
        let context = Unmanaged.passRetained(self).toOpaque()
        let body: @convention(c) (UnsafeMutableRawPointer?) -> UnsafeMutableRawPointer? = { argument in
            guard let argument else { return nil }
            let writer = Unmanaged<StateWriter>.fromOpaque(argument).takeRetainedValue()
            writer.drain()
            return nil
        }
        #if canImport(Darwin)
        var thread: pthread_t?
        guard pthread_create(&thread, nil, body, context) == 0, let thread else {
            Unmanaged<StateWriter>.fromOpaque(context).release()
            return false
        }
        #else
        var thread = pthread_t()
        guard pthread_create(&thread, nil, body, context) == 0 else {
            Unmanaged<StateWriter>.fromOpaque(context).release()
            return false
        }
        #endif
        pthread_detach(thread)
        return true
    }
}
