#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Runs submitted jobs on threads of its own: the one worker queue the libraries build their
/// background writers and blocking pools on.
///
/// - **Order.** ``Order/firstInFirstOut`` runs jobs in submission order (with more than one
///   thread they start in that order); ``Order/latestWins`` keeps at most one job waiting: a
///   newer job replaces one not yet started, which is dropped without a call (the newer job
///   supersedes it; the energy writer, where each save writes the whole state).
/// - **Threads.** At most `maxThreads` run at once (1: a serial queue). A thread is started,
///   with ``NamedThread``, when a job arrives that no idle or finishing thread will take; a
///   thread that finds nothing to run for `idleTime` ends (`.zero`: as soon as the queue is
///   empty), so an idle queue owns no thread.
/// - **Waiting.** ``waitForJobs(until:)`` blocks until every job submitted before the call has
///   finished, been withdrawn or been refused, or the deadline passes. Never call it from a job
///   of the same queue, nor from Swift's cooperative pool.
///
/// **When a thread cannot be created** (``ThreadStartError``: a thread or memory limit), the
/// job that thread was to run is never run on the submitting thread, which may be a thread of
/// Swift's cooperative pool, an event loop or a logging caller, and never left waiting for a
/// thread that may never come: it is handed back at once to its `Job.refuse` callback with
/// the error, so its owner answers it (the HTTP client answers a network error, the energy
/// writer reports a failed save that the next save retries, the log writer counts the lines
/// it could not write). When no thread of the queue is left alive every waiting job is
/// refused this way; otherwise only the job the new thread was to take, and the others run
/// when a running thread frees up. Nothing is kept from the failure: the next ``submit(_:)``
/// tries to start a thread again.
///
/// No lock is held while a job or a `refuse` callback runs.
///
/// ```swift
/// let writer = WorkerQueue(name: "log-writer")
/// writer.submit(.init(run: { write(lines) }, refuse: { error in report(error) }))
/// _ = writer.waitForJobs(until: Deadline(after: .seconds(5)))
/// ```
public final class WorkerQueue: Sendable {
    /// Which waiting jobs run.
    public enum Order: Sendable {
        /// Every job, in submission order.
        case firstInFirstOut
        /// Only the newest waiting job: a submission replaces the job still waiting.
        case latestWins
    }

    /// Starts a thread named `name` running `body`; ``NamedThread/start(name:_:)`` unless a
    /// test injects a failure.
    public typealias Starter = @Sendable (_ name: String, _ body: @escaping @Sendable () -> Void) throws(ThreadStartError) -> Void

    /// A unit of work and what to do if it never runs.
    public struct Job: Sendable {
        /// Identifies the job for ``WorkerQueue/withdraw(_:with:)``.
        public let key: ObjectIdentifier?
        let run: @Sendable (_ finished: () -> Void) -> Void
        let refuse: @Sendable (any Error) -> Void

        /// A job running `run` on a queue thread.
        ///
        /// - Parameters:
        ///   - key: identifies the job for ``WorkerQueue/withdraw(_:with:)``.
        ///   - run: the work; blocking is fine.
        ///   - refuse: called instead of `run` when the job is withdrawn (with the withdrawal's
        ///     error) or when no thread can be created for it (with the ``ThreadStartError``).
        public init(key: ObjectIdentifier? = nil, run: @escaping @Sendable () -> Void,
                    refuse: @escaping @Sendable (any Error) -> Void) {
            self.key = key
            self.run = { finished in
                run()
                finished()
            }
            self.refuse = refuse
        }

        /// A job that tells the queue when its work is over but before it hands its result
        /// on (calls `finished`, then resumes its caller), so the thread already counts as
        /// free when the caller submits its next job: that job then needs no other thread.
        public init(key: ObjectIdentifier? = nil, runSignalling run: @escaping @Sendable (_ finished: () -> Void) -> Void,
                    refuse: @escaping @Sendable (any Error) -> Void) {
            self.key = key
            self.run = run
            self.refuse = refuse
        }
    }

    private struct Entry {
        var ticket: UInt64
        var job: Job
    }

    private struct State {
        var queue: [Entry] = []
        /// Tickets of the jobs running now.
        var running: Set<UInt64> = []
        var lastTicket: UInt64 = 0
        /// Threads alive: starting, running a job or idle.
        var threads = 0
        /// Threads waiting for a job.
        var idle = 0
        /// Threads created that have not yet looked at `queue`; each will take a job.
        var starting = 0
        /// Threads whose job is over, about to look at `queue` again before they wait: a job
        /// they will take needs no signal.
        var finishing = 0
        /// Callers of waitForJobs(until:) waiting; idle threads wait on the same condition, so
        /// with any of these a change wakes everyone, else one idle thread at most.
        var jobWaiters = 0

        /// Threads that will look at `queue` without a signal.
        var looking: Int { starting + finishing }

        /// Trimming: since `windowStart`, the fewest threads that no submitted job needed
        /// (idle or about to look, beyond the waiting jobs), `Int.max` before the first submit.
        /// Idle threads are woken in turn, so each may run a job within ``idleTime`` and none
        /// times out; once a window of ``idleTime`` passed, that many threads end instead.
        var windowStart: ContinuousClock.Instant?
        var fewestSpare = Int.max

        /// Whether every job up to `ticket` has left the queue and finished.
        func settled(through ticket: UInt64) -> Bool {
            if let first = queue.first, first.ticket <= ticket { return false }
            return !running.contains { $0 <= ticket }
        }
    }

    /// The name of the queue's threads.
    public let name: String
    /// The most threads running at once (at least 1).
    public let maxThreads: Int
    /// How long a thread waits for a job before it ends.
    public let idleTime: Duration
    /// Which waiting jobs run.
    public let order: Order
    /// Yields a thread makes, looking for the next job, before it waits (a pool whose callers
    /// submit their next job as soon as the previous one answers).
    public let spinsBeforeSleeping: Int
    private let starter: Starter
    private let state = WPConditionLock(State())

    /// A queue whose threads are named `name`.
    ///
    /// - Parameters:
    ///   - name: the threads' name (at most 15 bytes show).
    ///   - maxThreads: the most threads at once; 1 runs jobs one at a time.
    ///   - idleTime: how long a thread with nothing to run waits before it ends.
    ///   - order: ``Order/firstInFirstOut`` or ``Order/latestWins``.
    ///   - spinsBeforeSleeping: yields before an idle thread waits; 0 by default.
    ///   - starter: how threads are started; ``NamedThread/start(name:_:)`` by default.
    public init(name: String, maxThreads: Int = 1, idleTime: Duration = .zero, order: Order = .firstInFirstOut,
                spinsBeforeSleeping: Int = 0,
                starter: @escaping Starter = { name, body throws(ThreadStartError) in try NamedThread.start(name: name, body) }) {
        self.name = name
        self.maxThreads = max(1, maxThreads)
        self.idleTime = max(.zero, idleTime)
        self.order = order
        self.spinsBeforeSleeping = max(0, spinsBeforeSleeping)
        self.starter = starter
    }

    /// Queues `job` and returns at once; an idle thread takes it, or a new one when none is
    /// idle and fewer than ``maxThreads`` run. With ``Order/latestWins`` a job still waiting
    /// is replaced.
    ///
    /// - Returns: `true` when the job has to wait for a running thread to finish its job.
    @discardableResult
    public func submit(_ job: Job) -> Bool {
        let decision = state.withLock { state -> (spawn: Bool, waits: Bool, signal: Bool, everyone: Bool) in
            state.lastTicket += 1
            if order == .latestWins { state.queue.removeAll() }
            state.queue.append(Entry(ticket: state.lastTicket, job: job))
            if idleTime > .zero {
                state.fewestSpare = min(state.fewestSpare, max(0, state.idle + state.looking - state.queue.count))
                if state.windowStart == nil { state.windowStart = .now }
            }
            // Starting and finishing threads look at `queue` before they wait; idle ones need a
            // signal. A new thread only when those will not cover every waiting job.
            let spawn = state.queue.count > state.idle + state.looking && state.threads < maxThreads
            if spawn {
                state.threads += 1
                state.starting += 1
            }
            return (spawn, state.queue.count > state.idle + state.looking,
                    state.idle > 0 && state.queue.count > state.looking, state.jobWaiters > 0)
        }
        // A signal could wake a caller of waitForJobs(until:) instead of an idle thread.
        if decision.signal { decision.everyone ? state.broadcast() : state.signal() }
        if decision.spawn { startThread() }
        return decision.waits
    }

    /// Removes the waiting job whose key is `key` and hands it `error` through its `refuse`;
    /// a job already running (or done) is left alone.
    ///
    /// - Returns: whether a waiting job was withdrawn.
    @discardableResult
    public func withdraw(_ key: ObjectIdentifier, with error: any Error) -> Bool {
        let entry = state.withLock { state -> Entry? in
            state.queue.firstIndex { $0.job.key == key }.map { state.queue.remove(at: $0) }
        }
        guard let entry else { return false }
        state.broadcast()
        entry.job.refuse(error)
        return true
    }

    /// Blocks until every job submitted before this call has finished (or was withdrawn,
    /// replaced or refused), or `deadline` passes. Must not be called from a job of this
    /// queue (it would wait for itself) nor from Swift's cooperative pool.
    ///
    /// - Returns: `false` when a job submitted before the call had not finished by `deadline`.
    public func waitForJobs(until deadline: Deadline) -> Bool {
        let target = state.withLock { state in
            state.jobWaiters += 1
            return state.lastTicket
        }
        return state.wait(until: deadline, for: { $0.settled(through: target) }) { state, settled in
            state.jobWaiters -= 1
            return settled
        }
    }

    /// Threads alive (starting, running or idle).
    public var threadCount: Int { state.withLock { $0.threads } }

    /// Jobs waiting for a thread.
    public var waitingCount: Int { state.withLock { $0.queue.count } }

    private func startThread() {
        do throws(ThreadStartError) {
            try starter(name) { self.work() }
        } catch {
            // With no thread alive the jobs would never run: all are refused. Otherwise only the
            // newest job, which this thread was to take; the others run when a thread frees up.
            let refused = state.withLock { state -> [Entry] in
                state.threads -= 1
                state.starting -= 1
                if state.threads == 0 {
                    defer { state.queue = [] }
                    return state.queue
                }
                if state.queue.count > state.idle + state.looking, let newest = state.queue.popLast() { return [newest] }
                return []
            }
            state.broadcast()
            for entry in refused { entry.job.refuse(error) }
        }
    }

    /// Takes the first waiting job, marking it running.
    private static func take(_ state: inout State) -> Entry {
        let entry = state.queue.removeFirst()
        state.running.insert(entry.ticket)
        return entry
    }

    /// Whether the thread about to wait should end instead: a window of ``idleTime`` passed in
    /// which some threads were never needed (``State/fewestSpare``); one of those ends per call.
    /// Otherwise a window that passed starts again.
    private func isSpare(_ state: inout State) -> Bool {
        guard idleTime > .zero, let start = state.windowStart else { return false }
        let now = ContinuousClock.now
        guard start.duration(to: now) >= idleTime else { return false }
        if state.fewestSpare > 0 && state.fewestSpare != .max {
            state.fewestSpare -= 1
            return true
        }
        state.windowStart = now
        state.fewestSpare = .max
        return false
    }

    /// A thread's life: run jobs while there are any, wait up to ``idleTime`` for more, end
    /// (or end at once when it is spare: ``isSpare(_:)``).
    private func work() {
        // What this thread counts as until it has looked at `queue`: starting, then finishing
        // after a job that said it was over.
        var counted: WritableKeyPath<State, Int>? = \State.starting
        enum Step { case run(Entry), wait, end }
        while true {
            let step = state.withLock { state -> Step in
                if let counted { state[keyPath: counted] -= 1 }
                if !state.queue.isEmpty { return .run(Self.take(&state)) }
                if isSpare(&state) {
                    state.threads -= 1
                    return .end
                }
                state.idle += 1
                return .wait
            }
            let entry: Entry
            switch step {
            case .end:
                return
            case .run(let next):
                entry = next
            case .wait:
                let woken = state.wait(until: Deadline(after: idleTime), for: { !$0.queue.isEmpty }) { state, ready -> Entry? in
                    state.idle -= 1
                    if ready { return Self.take(&state) }
                    state.threads -= 1
                    return nil
                }
                guard let woken else { return }
                entry = woken
            }
            var marked = false
            entry.job.run {
                state.withLock { $0.finishing += 1 }
                marked = true
            }
            let waiters = state.withLock { state in
                state.running.remove(entry.ticket)
                return state.jobWaiters > 0
            }
            if waiters { state.broadcast() }
            guard marked else {
                counted = nil
                continue
            }
            // The caller often submits its next job at once: look for it a little while (still
            // counted as finishing, so it is not signalled) before sleeping.
            var spins = 0
            while spins < spinsBeforeSleeping && state.withLock({ $0.queue.isEmpty }) {
                sched_yield()
                spins += 1
            }
            counted = \State.finishing
        }
    }
}

extension WorkerQueue {
    /// Runs `body` on a thread of the queue and hands back its result, suspending the caller
    /// without blocking its thread (an event loop's task or Swift's pool may await it).
    ///
    /// - Throws: the error the job was refused with (``ThreadStartError``, or a withdrawal's)
    ///   when `body` never ran.
    package func perform<T: Sendable>(_ body: @escaping @Sendable () -> T) async throws -> T {
        let outcome: Result<T, any Error> = await withCheckedContinuation { continuation in
            submit(Job(runSignalling: { finished in
                let result = body()
                finished()
                continuation.resume(returning: .success(result))
            }, refuse: { error in continuation.resume(returning: .failure(error)) }))
        }
        return try outcome.get()
    }
}
