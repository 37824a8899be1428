#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Runs submitted jobs one at a time, in order, on a background thread.
///
/// A stand-in for a serial `DispatchQueue` built on plain pthreads, so WPLogging does not link
/// `libswiftDispatch` (which in turn loads the string-processing runtime libraries) into
/// every binary that logs. The thread is started when a job arrives and no thread is running,
/// and exits as soon as the queue is empty, so an idle sink owns no thread; jobs are rare
/// (one maintenance pass per rotation). If a thread cannot be created the jobs run on the
/// submitting thread instead: slower, but nothing is lost.
final class SerialWorker: @unchecked Sendable {
    // Safety of `@unchecked Sendable`: `jobs`, `running`, `submitted` and `finished` are read
    // and written only while `mutex` is held. `mutex` and `condition` are allocated and
    // initialised once in `init`, never moved, and destroyed in `deinit`, which runs only when
    // no thread holds a reference (a running thread retains the worker).
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    private let condition: UnsafeMutablePointer<pthread_cond_t>
    private var jobs: [@Sendable () -> Void] = []
    private var running = false
    private var submitted = 0
    private var finished = 0

    init() {
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

    /// Queues `job` behind the jobs submitted earlier and returns at once.
    func async(_ job: @escaping @Sendable () -> Void) {
        pthread_mutex_lock(mutex)
        jobs.append(job)
        submitted += 1
        let start = !running
        running = true
        pthread_mutex_unlock(mutex)
        if start && !startThread() { drain() }
    }

    /// Blocks until every job submitted before this call has finished. Must not be called
    /// from a job (it would wait for itself).
    func wait() {
        pthread_mutex_lock(mutex)
        let target = submitted
        while finished < target { pthread_cond_wait(condition, mutex) }
        pthread_mutex_unlock(mutex)
    }

    /// Like ``wait()``, for at most `timeout`; `false` when a job submitted before this call
    /// had not finished by then. Must not be called from a job.
    func wait(timeout: Duration) -> Bool {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        let target = submitted
        let deadline = Self.deadline(after: timeout)
        while finished < target {
            var until = deadline
            if pthread_cond_timedwait(condition, mutex, &until) == ETIMEDOUT { return finished >= target }
        }
        return true
    }

    /// `timeout` from now on the clock the condition waits with.
    private static func deadline(after timeout: Duration) -> timespec {
        var now = timespec()
        #if canImport(Darwin)
        clock_gettime(CLOCK_REALTIME, &now)
        #else
        clock_gettime(CLOCK_MONOTONIC, &now)
        #endif
        let (seconds, attoseconds) = max(timeout, .zero).components
        var nanoseconds = Int(now.tv_nsec) + Int(attoseconds / 1_000_000_000)
        var wholeSeconds = Int(now.tv_sec) + Int(min(seconds, Int64(Int32.max)))
        wholeSeconds += nanoseconds / 1_000_000_000
        nanoseconds %= 1_000_000_000
        return timespec(tv_sec: time_t(wholeSeconds), tv_nsec: Int(nanoseconds))
    }

    /// Runs queued jobs until the queue is empty, then marks the worker idle.
    private func drain() {
        while true {
            pthread_mutex_lock(mutex)
            guard !jobs.isEmpty else {
                running = false
                pthread_mutex_unlock(mutex)
                return
            }
            let job = jobs.removeFirst()
            pthread_mutex_unlock(mutex)
            job()
            pthread_mutex_lock(mutex)
            finished += 1
            pthread_cond_broadcast(condition)
            pthread_mutex_unlock(mutex)
        }
    }

    /// Starts a detached thread running ``drain()``; `false` when none could be created.
    private func startThread() -> Bool {
        let context = Unmanaged.passRetained(self).toOpaque()
        #if canImport(Darwin)
        var thread: pthread_t?
        let status = pthread_create(&thread, nil, { argument in
            Unmanaged<SerialWorker>.fromOpaque(argument).takeRetainedValue().drain()
            return nil
        }, context)
        guard status == 0 else {
            Unmanaged<SerialWorker>.fromOpaque(context).release()
            return false
        }
        if let thread { pthread_detach(thread) }
        #else
        var thread = pthread_t()
        let status = pthread_create(&thread, nil, { argument in
            guard let argument else { return nil }
            Unmanaged<SerialWorker>.fromOpaque(argument).takeRetainedValue().drain()
            return nil
        }, context)
        guard status == 0 else {
            Unmanaged<SerialWorker>.fromOpaque(context).release()
            return false
        }
        pthread_detach(thread)
        #endif
        return true
    }
}
