#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

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
final class ExchangeThreads: @unchecked Sendable {
    // Safety of `@unchecked Sendable`: `jobs`, `threads`, `idle`, `starting` and `finishing`
    // are read and written only while `mutex` is held. `mutex` and `condition` (a condition
    // variable is what `Synchronization.Mutex` lacks: idle threads wait on it with a time
    // limit) are allocated and initialised once in `init`, never moved, and destroyed in
    // `deinit`, which runs only when no thread holds a reference (a running thread retains the
    // set). No lock is held while a job runs.

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

    /// Yields a thread makes, looking for the next job, before it waits on `condition`.
    static let spinsBeforeSleeping = 64

    /// The most threads running at once (at least 1).
    let maxThreads: Int
    /// How long a thread waits for a job before it ends.
    let idleTime: Duration
    private let name: String
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    private let condition: UnsafeMutablePointer<pthread_cond_t>
    private var jobs: [Job] = []
    /// Threads alive: starting, running a job or idle.
    private var threads = 0
    /// Threads waiting on `condition` for a job.
    private var idle = 0
    /// Threads created that have not yet taken the lock; each will take a job.
    private var starting = 0
    /// Threads whose job's exchange is over, about to look at `jobs` again (yielding a while)
    /// before they wait: a job they will take needs no signal.
    private var finishing = 0

    init(maxThreads: Int, idleTime: Duration, name: String = "http-client") {
        self.maxThreads = max(1, maxThreads)
        self.idleTime = min(max(.zero, idleTime), .seconds(1 << 32)) // keeps timespec arithmetic in range
        self.name = name
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
        pthread_condattr_setclock(&attributes, CLOCK_MONOTONIC) // idle waits ignore clock changes
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

    /// Queues `job` behind the jobs submitted earlier and returns at once; an idle thread
    /// takes it, or a new one when none is idle and fewer than ``maxThreads`` run.
    ///
    /// - Returns: `true` when the job has to wait for a running thread to finish its job.
    @discardableResult
    func submit(_ job: Job) -> Bool {
        pthread_mutex_lock(mutex)
        // Checked under the lock: cancel() marks the exchange before it withdraws the job, so
        // a job is either refused here or found queued by withdraw(_:with:).
        if job.cancellation.isCancelled {
            pthread_mutex_unlock(mutex)
            job.refuse(ExchangeCancellation.error)
            return false
        }
        jobs.append(job)
        // Starting and finishing threads look at `jobs` before they wait; idle ones need a
        // signal. A new thread only when those will not cover every waiting job.
        let spawn = jobs.count > idle + starting + finishing && threads < maxThreads
        if spawn {
            threads += 1
            starting += 1
        }
        let waits = jobs.count > idle + starting + finishing
        if idle > 0 && jobs.count > starting + finishing { pthread_cond_signal(condition) }
        pthread_mutex_unlock(mutex)
        if spawn { startThread() }
        return waits
    }

    /// Removes the waiting job of `cancellation` and refuses it with `error`; a job already
    /// running (or done) is left alone.
    func withdraw(_ cancellation: ExchangeCancellation, with error: HTTPClientError) {
        pthread_mutex_lock(mutex)
        let index = jobs.firstIndex { $0.cancellation === cancellation }
        let job = index.map { jobs.remove(at: $0) }
        pthread_mutex_unlock(mutex)
        job?.refuse(error)
    }

    /// Threads alive (starting, running or idle).
    var threadCount: Int { locked { threads } }

    /// Jobs waiting for a thread.
    var waitingCount: Int { locked { jobs.count } }

    private func locked<T>(_ body: () -> T) -> T {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return body()
    }

    private func startThread() {
        guard let reason = NamedThread.start(name: name, { self.work() }) else { return }
        pthread_mutex_lock(mutex)
        threads -= 1
        starting -= 1
        // With no thread alive the jobs would never run: all are refused. Otherwise only the
        // newest job that this thread was to take, which set no deadline timer as one that
        // had to wait does (see HTTPClient.send); the others run when a thread frees up.
        var refused: [Job] = []
        if threads == 0 {
            swap(&refused, &jobs)
        } else if jobs.count > idle + starting + finishing, let newest = jobs.popLast() {
            refused.append(newest)
        }
        pthread_mutex_unlock(mutex)
        let error = HTTPClientError(.network, "cannot start a thread for the exchange: \(reason)")
        for job in refused { job.refuse(error) }
    }

    /// A thread's life: run jobs while there are any, wait up to ``idleTime`` for more, end.
    private func work() {
        pthread_mutex_lock(mutex)
        starting -= 1
        while true {
            if !jobs.isEmpty {
                let job = jobs.removeFirst()
                pthread_mutex_unlock(mutex)
                var marked = false
                job.run {
                    pthread_mutex_lock(mutex)
                    finishing += 1
                    pthread_mutex_unlock(mutex)
                    marked = true
                }
                pthread_mutex_lock(mutex)
                if marked {
                    // The caller often sends its next request at once: look for it a little
                    // while (still counted as finishing, so it is not signalled) before sleeping.
                    var spins = 0
                    while jobs.isEmpty && spins < Self.spinsBeforeSleeping {
                        pthread_mutex_unlock(mutex)
                        sched_yield()
                        spins += 1
                        pthread_mutex_lock(mutex)
                    }
                    finishing -= 1
                }
                continue
            }
            idle += 1
            let until = ContinuousClock.now.advanced(by: idleTime)
            while jobs.isEmpty && waitForJob(until: until) {}
            idle -= 1
            if jobs.isEmpty {
                threads -= 1
                pthread_mutex_unlock(mutex)
                return
            }
        }
    }

    /// Waits on `condition` (the lock held) until signalled or `until`; `false` once `until`
    /// has passed.
    private func waitForJob(until: ContinuousClock.Instant) -> Bool {
        let left = ContinuousClock.now.duration(to: until)
        guard left > .zero else { return false }
        let (seconds, attoseconds) = left.components
        let nanoseconds = Int(attoseconds / 1_000_000_000)
        #if canImport(Darwin)
        var relative = timespec(tv_sec: Int(seconds), tv_nsec: nanoseconds)
        _ = pthread_cond_timedwait_relative_np(condition, mutex, &relative)
        #else
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        let total = Int(now.tv_nsec) + nanoseconds
        var absolute = timespec(tv_sec: now.tv_sec + Int(seconds) + total / 1_000_000_000,
                                tv_nsec: total % 1_000_000_000)
        _ = pthread_cond_timedwait(condition, mutex, &absolute)
        #endif
        return true
    }
}
