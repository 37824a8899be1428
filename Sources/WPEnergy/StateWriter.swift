#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import Synchronization
import WPRuntime
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
/// The thread is a serial, latest-wins ``WorkerQueue``: it starts when a state is queued and
/// no thread runs, and exits when nothing is queued, so an idle meter owns none. When no
/// thread can be created the save is not run on the caller's thread: it ends at once as a
/// failed save (its completion and waiters are told), and the next save tries again. Callers wait for the save of a generation with
/// ``waitUntilSaved(_:timeout:)`` (blocking, with a deadline) or ``saved(_:timeout:)``
/// (suspending); both give up at their deadline while the save goes on.
final class StateWriter: Sendable {
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
        var resume: @Sendable (Outcome) -> Void
    }

    private struct State {
        /// The highest generation whose save attempt ended, and how.
        var finished: UInt64 = 0
        var lastFailure: StorageError?
        var failedGeneration: UInt64 = 0
        var waiters: [Waiter] = []
        var nextWaiter: UInt64 = 0

        /// The outcome of `generation` if known.
        func outcome(for generation: UInt64) -> Outcome? {
            if finished >= generation {
                if let lastFailure, failedGeneration >= generation { return .failed(lastFailure) }
                return .saved
            }
            return nil
        }
    }

    private let state = WPConditionLock(State())
    /// The highest generation queued so far (queued, in progress or done). Held while a state
    /// is handed to `writer`, so a newer generation is never replaced by an older one.
    private let queued = Mutex<UInt64>(0)
    private let writer: WorkerQueue
    private let save: Save

    /// - Parameters:
    ///   - save: writes a state, on the writer's thread.
    ///   - starter: how the writer's thread is started; ``NamedThread/start(name:_:)`` by default.
    init(save: @escaping Save,
         starter: @escaping WorkerQueue.Starter = { name, body throws(ThreadStartError) in try NamedThread.start(name: name, body) }) {
        self.save = save
        self.writer = WorkerQueue(name: "state-writer", order: .latestWins, starter: starter)
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
    func submit(_ energy: EnergyState, generation: UInt64, completion: @escaping Completion) -> Bool {
        let job = Job(state: energy, generation: generation, completion: completion)
        // The queue's refuse callback runs on this thread when no thread can be created; it
        // takes `state`, never `queued`, so holding `queued` here cannot deadlock.
        return queued.withLock { queued in
            guard generation > queued else { return false }
            queued = generation
            writer.submit(WorkerQueue.Job(run: { [self] in
                finish(job, failure: save(job.state))
            }, refuse: { [self] error in
                finish(job, failure: .system(operation: "save", path: "", errno: (error as? ThreadStartError)?.code ?? 0,
                                             message: "cannot save the energy state: \(error)"))
            }))
            return true
        }
    }

    /// The newest generation queued so far.
    var newestQueued: UInt64 {
        queued.withLock { $0 }
    }

    /// Blocks until a save covering `generation` ended, or `timeout` passed. Never call it
    /// from the Swift concurrency pool; use ``saved(_:timeout:)``.
    func waitUntilSaved(_ generation: UInt64, timeout: Duration) -> Outcome {
        state.wait(until: Deadline(after: timeout), for: { $0.outcome(for: generation) != nil }) { state, _ in
            state.outcome(for: generation) ?? .timedOut
        }
    }

    /// Suspends until a save covering `generation` ended, or `timeout` passed on the
    /// continuous clock. The calling thread is never blocked.
    func saved(_ generation: UInt64, timeout: Duration) async -> Outcome {
        let id = Mutex<UInt64>(0)
        return await BoundedWait.outcome(within: timeout, on: ContinuousClock(), orElse: .timedOut,
                                         afterTimeout: { [self] in withdrawWaiter(id.withLock { $0 }) }) { done in
            let ready = state.withLock { state -> Outcome? in
                if let outcome = state.outcome(for: generation) { return outcome }
                state.nextWaiter += 1
                state.waiters.append(Waiter(id: state.nextWaiter, generation: generation, resume: done))
                id.withLock { $0 = state.nextWaiter }
                return nil
            }
            if let ready { done(ready) }
        }
    }

    /// Waiters registered and not yet woken or withdrawn (for tests).
    var waiterCount: Int { state.withLock { $0.waiters.count } }

    /// Removes a waiter whose wait timed out, so a save that never ends keeps no one's closure.
    private func withdrawWaiter(_ id: UInt64) {
        state.withLock { state in state.waiters.removeAll { $0.id == id } }
    }

    /// Records the outcome of `job`'s save: its completion first, then every waiter it settles.
    private func finish(_ job: Job, failure: StorageError?) {
        job.completion(job.generation, failure)
        let woken = state.withLock { state -> [(Waiter, Outcome)] in
            state.finished = max(state.finished, job.generation)
            if let failure {
                state.lastFailure = failure
                state.failedGeneration = job.generation
            } else {
                state.lastFailure = nil
            }
            var woken: [(Waiter, Outcome)] = []
            let settled = state
            state.waiters.removeAll { waiter in
                guard let outcome = settled.outcome(for: waiter.generation) else { return false }
                woken.append((waiter, outcome))
                return true
            }
            return woken
        }
        state.broadcast()
        for (waiter, outcome) in woken { waiter.resume(outcome) }
    }
}
