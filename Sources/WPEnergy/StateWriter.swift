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
/// The thread starts when a state is queued and no thread runs, and exits when nothing is
/// queued, so an idle meter owns none. Callers wait for the save of a generation with
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
        var continuation: CheckedContinuation<Outcome, Never>
    }

    private struct State {
        var pending: Job?
        var running = false
        /// The highest generation queued so far (queued, in progress or done).
        var queued: UInt64 = 0
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

    private let state = ConditionLock(State())
    private let save: Save

    init(save: @escaping Save) {
        self.save = save
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
        let start = state.withLock { state -> Bool? in
            guard generation > state.queued else { return nil }
            state.queued = generation
            state.pending = Job(state: energy, generation: generation, completion: completion)
            defer { state.running = true }
            return !state.running
        }
        guard let start else { return false }
        if start {
            do throws(ThreadStartError) {
                try NamedThread.start(name: "state-writer") { self.drain() }
            } catch {
                drain()
            }
        }
        return true
    }

    /// The newest generation queued so far.
    var newestQueued: UInt64 {
        state.withLock { $0.queued }
    }

    /// Blocks until a save covering `generation` ended, or `timeout` passed (`nil`: no
    /// deadline). Never call it from the Swift concurrency pool; use ``saved(_:timeout:)``.
    func waitUntilSaved(_ generation: UInt64, timeout: Duration?) -> Outcome {
        state.wait(until: timeout.map { Deadline(after: $0) }, for: { $0.outcome(for: generation) != nil }) { state, _ in
            state.outcome(for: generation) ?? .timedOut
        }
    }

    /// Suspends until a save covering `generation` ended, or `timeout` passed on the
    /// continuous clock. The calling thread is never blocked.
    func saved(_ generation: UInt64, timeout: Duration) async -> Outcome {
        let timer = Mutex<Task<Void, Never>?>(nil)
        let result = await withCheckedContinuation { (continuation: CheckedContinuation<Outcome, Never>) in
            let (id, ready) = state.withLock { state -> (UInt64, Outcome?) in
                if let outcome = state.outcome(for: generation) { return (0, outcome) }
                state.nextWaiter += 1
                state.waiters.append(Waiter(id: state.nextWaiter, generation: generation, continuation: continuation))
                return (state.nextWaiter, nil)
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

    private func resumeWaiter(_ id: UInt64, with outcome: Outcome) {
        let waiter = state.withLock { state -> Waiter? in
            guard let index = state.waiters.firstIndex(where: { $0.id == id }) else { return nil }
            return state.waiters.remove(at: index)
        }
        waiter?.continuation.resume(returning: outcome)
    }

    /// Saves queued states until none is left, then marks the writer idle.
    private func drain() {
        while let job = state.withLock({ state -> Job? in
            guard let job = state.pending else {
                state.running = false
                return nil
            }
            state.pending = nil
            return job
        }) {
            let failure = save(job.state)
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
            for (waiter, outcome) in woken { waiter.continuation.resume(returning: outcome) }
        }
    }
}
