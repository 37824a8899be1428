import Synchronization
import WPRuntime

/// One client's threads for blocking exchanges: plain pthreads named `http-client`, never a
/// thread of Dispatch's or Swift's shared pools, so an exchange that hangs cannot starve either.
///
/// The threads are the client's own ``WorkerQueue`` or, when the client was given an
/// ``HTTPClient/ThreadPool``, that pool's queue, shared with other clients.
///
/// - **Own threads.** Threads start on demand, one per job that finds no idle thread, up to
///   `maxThreads`; jobs beyond that wait in submission order (FIFO) for a thread of this set
///   only. A thread with nothing to run for `idleTime` ends, so an idle client holds no thread.
/// - **A shared pool.** At most `maxThreads` of this client's jobs are handed to the pool at
///   once (one unresponsive server holds at most that many of its threads); the others wait
///   here, in submission order, and go to the pool as this client's jobs end. In the pool they
///   wait, in order, for its threads.
///
/// A job whose exchange is cancelled, or whose deadline passes, while it waits (here or in the
/// pool) is withdrawn at once (``withdraw(_:with:)``). A job for which no thread can be created
/// is refused with a `network` error (the worker queue's policy: all waiting jobs when no
/// thread is left), never run on the caller's thread.
final class ExchangeThreads: Sendable {
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

    /// Yields a thread makes, looking for the next job, before it waits.
    static let spinsBeforeSleeping = 64

    private let queue: WorkerQueue
    /// With a shared pool: this client's jobs in the pool and those waiting to go there.
    private let admission = Mutex(Admission())
    /// Whether the threads are a pool shared with other clients.
    let isShared: Bool
    /// The most of this client's exchanges running at once (at least 1).
    let maxThreads: Int

    private struct Admission {
        var inPool = 0
        var waiting: [Job] = []
    }

    /// A client's own threads.
    init(maxThreads: Int, idleTime: Duration, name: String = "http-client",
         starter: @escaping WorkerQueue.Starter = { name, body throws(ThreadStartError) in try NamedThread.start(name: name, body) }) {
        queue = WorkerQueue(name: name, maxThreads: maxThreads, idleTime: idleTime,
                            spinsBeforeSleeping: Self.spinsBeforeSleeping, starter: starter)
        isShared = false
        self.maxThreads = queue.maxThreads
    }

    /// A client's share of `pool`: at most `maxThreads` of its jobs in the pool at once.
    init(pool: HTTPClient.ThreadPool, maxThreads: Int) {
        queue = pool.queue
        isShared = true
        self.maxThreads = max(1, maxThreads)
    }

    /// How long a thread waits for a job before it ends.
    var idleTime: Duration { queue.idleTime }

    /// Queues `job` behind the jobs submitted earlier and returns at once; an idle thread
    /// takes it, or a new one when none is idle and fewer than the limit run.
    ///
    /// - Returns: `true` when the job has to wait for a running thread to finish its job.
    @discardableResult
    func submit(_ job: Job) -> Bool {
        // cancel() marks the exchange before it withdraws the job: a job cancelled before this
        // check is refused here, one cancelled later is withdrawn or, if it already started,
        // stops at its own check.
        if job.cancellation.isCancelled {
            job.refuse(ExchangeCancellation.error)
            return false
        }
        guard isShared else { return queue.submit(queued(job)) }
        let admitted = admission.withLock { state in
            guard state.inPool < maxThreads else {
                state.waiting.append(job)
                return false
            }
            state.inPool += 1
            return true
        }
        return admitted ? queue.submit(queued(job)) : true
    }

    /// Removes the waiting job of `cancellation` and refuses it with `error`; a job already
    /// running (or done) is left alone.
    func withdraw(_ cancellation: ExchangeCancellation, with error: HTTPClientError) {
        let held = isShared ? admission.withLock { state -> Job? in
            state.waiting.firstIndex { $0.cancellation === cancellation }.map { state.waiting.remove(at: $0) }
        } : nil
        if let held {
            held.refuse(error)
        } else {
            queue.withdraw(ObjectIdentifier(cancellation), with: error)
        }
    }

    /// `job` as the queue runs it; with a shared pool, its end (run, refused or withdrawn) hands
    /// this client's next waiting job to the pool.
    private func queued(_ job: Job) -> WorkerQueue.Job {
        let shared = isShared
        return WorkerQueue.Job(key: ObjectIdentifier(job.cancellation), runSignalling: { [self] finished in
            var released = false
            job.run {
                finished()
                released = true
                if shared { admitNext() }
            }
            if shared && !released { admitNext() } // a job that never said it was over
        }, refuse: { [self] error in
            if shared { admitNext() }
            if let error = error as? HTTPClientError {
                job.refuse(error)
            } else {
                job.refuse(HTTPClientError(.network, "cannot run the exchange: \(error)"))
            }
        })
    }

    /// One of this client's jobs left the pool: the next waiting one takes its place.
    private func admitNext() {
        guard isShared else { return }
        let next = admission.withLock { state -> Job? in
            guard !state.waiting.isEmpty else {
                state.inPool -= 1
                return nil
            }
            return state.waiting.removeFirst()
        }
        if let next { queue.submit(queued(next)) }
    }

    /// Threads alive (starting, running or idle); with a shared pool, the pool's.
    var threadCount: Int { queue.threadCount }

    /// This client's jobs waiting for a thread.
    var waitingCount: Int {
        guard isShared else { return queue.waitingCount }
        return admission.withLock { $0.waiting.count } + queue.waitingCount
    }
}
