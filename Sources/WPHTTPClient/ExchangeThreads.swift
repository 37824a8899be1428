#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import WPRuntime

/// One client's threads for blocking exchanges: plain pthreads named `http-client`, never a
/// thread of Dispatch's or Swift's shared pools, so an exchange that hangs cannot starve
/// either.
///
/// Threads start on demand, one per job that finds no idle thread, up to `maxThreads`; jobs
/// beyond that wait in submission order (FIFO) for a thread of this set only. A thread with
/// nothing to run for `idleTime` ends, so an idle client holds no thread. A job whose
/// exchange is cancelled, or whose deadline passes, while it waits is withdrawn at once
/// (``withdraw(_:with:)``). A job for which no thread can be created is refused with a
/// `network` error (all waiting jobs when no thread is left), never run on the caller's
/// thread.
final class ExchangeThreads: Sendable {
    // No lock is held while a job runs.

    /// An exchange waiting for, or running on, a thread.
    struct Job: Sendable {
        /// Identifies the job for ``withdraw(_:with:)``; a job submitted already cancelled is
        /// refused.
        let cancellation: ExchangeCancellation
        /// The blocking exchange. It calls its argument once the exchange is over, just before
        /// it reports the outcome (resumes its caller), so the thread counts as free by the
        /// time the caller can submit its next job: that job then needs no other thread.
        let run: @Sendable (_ exchangeDone: () -> Void) -> Void
        /// Called instead of `run` when the job is withdrawn or no thread can be had.
        let refuse: @Sendable (HTTPClientError) -> Void
    }

    private struct State {
        var jobs: [Job] = []
        /// Threads alive: starting, running a job or idle.
        var threads = 0
        /// Threads waiting for a job.
        var idle = 0
        /// Threads created that have not yet looked at `jobs`; each will take a job.
        var starting = 0
        /// Threads whose job's exchange is over, about to look at `jobs` again (yielding a
        /// while) before they wait: a job they will take needs no signal.
        var finishing = 0

        /// Threads that will look at `jobs` without a signal.
        var looking: Int { starting + finishing }
    }

    /// Yields a thread makes, looking for the next job, before it waits.
    static let spinsBeforeSleeping = 64

    /// The most threads running at once (at least 1).
    let maxThreads: Int
    /// How long a thread waits for a job before it ends.
    let idleTime: Duration
    private let name: String
    private let state = ConditionLock(State())

    init(maxThreads: Int, idleTime: Duration, name: String = "http-client") {
        self.maxThreads = max(1, maxThreads)
        self.idleTime = max(.zero, idleTime)
        self.name = name
    }

    /// Queues `job` behind the jobs submitted earlier and returns at once; an idle thread
    /// takes it, or a new one when none is idle and fewer than ``maxThreads`` run.
    ///
    /// - Returns: `true` when the job has to wait for a running thread to finish its job.
    @discardableResult
    func submit(_ job: Job) -> Bool {
        // Checked under the lock: cancel() marks the exchange before it withdraws the job, so
        // a job is either refused here or found queued by withdraw(_:with:).
        let queued = state.withLock { state -> (spawn: Bool, waits: Bool, signal: Bool)? in
            if job.cancellation.isCancelled { return nil }
            state.jobs.append(job)
            // Starting and finishing threads look at `jobs` before they wait; idle ones need a
            // signal. A new thread only when those will not cover every waiting job.
            let spawn = state.jobs.count > state.idle + state.looking && state.threads < maxThreads
            if spawn {
                state.threads += 1
                state.starting += 1
            }
            return (spawn, state.jobs.count > state.idle + state.looking,
                    state.idle > 0 && state.jobs.count > state.looking)
        }
        guard let queued else {
            job.refuse(ExchangeCancellation.error)
            return false
        }
        if queued.signal { state.signal() }
        if queued.spawn { startThread() }
        return queued.waits
    }

    /// Removes the waiting job of `cancellation` and refuses it with `error`; a job already
    /// running (or done) is left alone.
    func withdraw(_ cancellation: ExchangeCancellation, with error: HTTPClientError) {
        let job = state.withLock { state -> Job? in
            state.jobs.firstIndex { $0.cancellation === cancellation }.map { state.jobs.remove(at: $0) }
        }
        job?.refuse(error)
    }

    /// Threads alive (starting, running or idle).
    var threadCount: Int { state.withLock { $0.threads } }

    /// Jobs waiting for a thread.
    var waitingCount: Int { state.withLock { $0.jobs.count } }

    private func startThread() {
        do throws(ThreadStartError) {
            try NamedThread.start(name: name) { self.work() }
        } catch {
            // With no thread alive the jobs would never run: all are refused. Otherwise only the
            // newest job that this thread was to take, which set no deadline timer as one that
            // had to wait does (see HTTPClient.send); the others run when a thread frees up.
            let refused = state.withLock { state -> [Job] in
                state.threads -= 1
                state.starting -= 1
                if state.threads == 0 {
                    defer { state.jobs = [] }
                    return state.jobs
                }
                if state.jobs.count > state.idle + state.looking, let newest = state.jobs.popLast() { return [newest] }
                return []
            }
            let failure = HTTPClientError(.network, "cannot run the exchange: \(error)")
            for job in refused { job.refuse(failure) }
        }
    }

    /// A thread's life: run jobs while there are any, wait up to ``idleTime`` for more, end.
    private func work() {
        // What this thread counts as until it has looked at `jobs`: starting, then finishing
        // after an exchange that said it was over.
        var counted: WritableKeyPath<State, Int>? = \State.starting
        while true {
            let next = state.withLock { state -> Job? in
                if let counted { state[keyPath: counted] -= 1 }
                if !state.jobs.isEmpty { return state.jobs.removeFirst() }
                state.idle += 1
                return nil
            }
            let job: Job
            if let next {
                job = next
            } else {
                let woken = state.wait(until: Deadline(after: idleTime), for: { !$0.jobs.isEmpty }) { state, ready -> Job? in
                    state.idle -= 1
                    if ready { return state.jobs.removeFirst() }
                    state.threads -= 1
                    return nil
                }
                guard let woken else { return }
                job = woken
            }
            var marked = false
            job.run {
                state.withLock { $0.finishing += 1 }
                marked = true
            }
            guard marked else {
                counted = nil
                continue
            }
            // The caller often sends its next request at once: look for it a little while
            // (still counted as finishing, so it is not signalled) before sleeping.
            var spins = 0
            while spins < Self.spinsBeforeSleeping && state.withLock({ $0.jobs.isEmpty }) {
                sched_yield()
                spins += 1
            }
            counted = \State.finishing
        }
    }
}
