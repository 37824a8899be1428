#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import WPRuntime

/// Runs submitted jobs one at a time, in order, on a background thread.
///
/// A stand-in for a serial `DispatchQueue` built on plain pthreads, so WPLogging does not link
/// `libswiftDispatch` (which in turn loads the string-processing runtime libraries) into
/// every binary that logs. The thread is started when a job arrives and no thread is running,
/// and exits as soon as the queue is empty, so an idle sink owns no thread; jobs are rare
/// (one maintenance pass per rotation). If a thread cannot be created the jobs run on the
/// submitting thread instead: slower, but nothing is lost.
final class SerialWorker: Sendable {
    private struct State {
        var jobs: [@Sendable () -> Void] = []
        var running = false
        var submitted = 0
        var finished = 0
    }

    private let state = ConditionLock(State())
    private let name: String

    /// A worker whose thread is named `name`.
    init(name: String) {
        self.name = name
    }

    /// Queues `job` behind the jobs submitted earlier and returns at once.
    func async(_ job: @escaping @Sendable () -> Void) {
        let start = state.withLock { state -> Bool in
            state.jobs.append(job)
            state.submitted += 1
            defer { state.running = true }
            return !state.running
        }
        guard start else { return }
        do throws(ThreadStartError) {
            try NamedThread.start(name: name) { self.drain() }
        } catch {
            drain()
        }
    }

    /// Blocks until every job submitted before this call has finished. Must not be called
    /// from a job (it would wait for itself).
    func wait() {
        _ = wait(until: nil)
    }

    /// Like ``wait()``, for at most `timeout`; `false` when a job submitted before this call
    /// had not finished by then. Must not be called from a job.
    func wait(timeout: Duration) -> Bool {
        wait(until: Deadline(after: timeout))
    }

    private func wait(until deadline: Deadline?) -> Bool {
        let target = state.withLock { $0.submitted }
        return state.wait(until: deadline, for: { $0.finished >= target }) { _, done in done }
    }

    /// Runs queued jobs until the queue is empty, then marks the worker idle.
    private func drain() {
        while let job = state.withLock({ state -> (@Sendable () -> Void)? in
            guard !state.jobs.isEmpty else {
                state.running = false
                return nil
            }
            return state.jobs.removeFirst()
        }) {
            job()
            state.withLock { $0.finished += 1 }
            state.broadcast()
        }
    }
}
