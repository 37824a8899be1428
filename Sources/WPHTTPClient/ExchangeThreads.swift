import WPRuntime

/// One client's threads for blocking exchanges: a ``WorkerQueue`` of plain pthreads named
/// `http-client`, never a thread of Dispatch's or Swift's shared pools, so an exchange that
/// hangs cannot starve either.
///
/// Threads start on demand, one per job that finds no idle thread, up to `maxThreads`; jobs
/// beyond that wait in submission order (FIFO) for a thread of this set only. A thread with
/// nothing to run for `idleTime` ends, so an idle client holds no thread. A job whose
/// exchange is cancelled, or whose deadline passes, while it waits is withdrawn at once
/// (``withdraw(_:with:)``). A job for which no thread can be created is refused with a
/// `network` error (the worker queue's policy: all waiting jobs when no thread is left), never
/// run on the caller's thread.
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

    init(maxThreads: Int, idleTime: Duration, name: String = "http-client",
         starter: @escaping WorkerQueue.Starter = { name, body throws(ThreadStartError) in try NamedThread.start(name: name, body) }) {
        queue = WorkerQueue(name: name, maxThreads: maxThreads, idleTime: idleTime,
                            spinsBeforeSleeping: Self.spinsBeforeSleeping, starter: starter)
    }

    /// The most threads running at once (at least 1).
    var maxThreads: Int { queue.maxThreads }
    /// How long a thread waits for a job before it ends.
    var idleTime: Duration { queue.idleTime }

    /// Queues `job` behind the jobs submitted earlier and returns at once; an idle thread
    /// takes it, or a new one when none is idle and fewer than ``maxThreads`` run.
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
        return queue.submit(WorkerQueue.Job(key: ObjectIdentifier(job.cancellation), runSignalling: job.run, refuse: { error in
            if let error = error as? HTTPClientError {
                job.refuse(error)
            } else {
                job.refuse(HTTPClientError(.network, "cannot run the exchange: \(error)"))
            }
        }))
    }

    /// Removes the waiting job of `cancellation` and refuses it with `error`; a job already
    /// running (or done) is left alone.
    func withdraw(_ cancellation: ExchangeCancellation, with error: HTTPClientError) {
        queue.withdraw(ObjectIdentifier(cancellation), with: error)
    }

    /// Threads alive (starting, running or idle).
    var threadCount: Int { queue.threadCount }

    /// Jobs waiting for a thread.
    var waitingCount: Int { queue.waitingCount }
}
