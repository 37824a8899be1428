import Synchronization
import WPRuntime

/// A small, bounded set of threads for bcrypt verifications, separate from the event loop and
/// from Swift's shared task pool.
///
/// At most `workers` verifications run at once, each on a thread of a `WorkerQueue` named
/// `http-bcrypt` (started when work arrives, gone when the queue is empty). At most
/// `queueCapacity` wait; past that ``run(lane:_:)`` answers `nil` at once (the caller sends
/// `429`). Work from the ``Lane/clean`` lane always runs before work from the
/// ``Lane/suspect`` lane (addresses with recent failures), and suspect work may fill only half
/// the queue, so a correct password never waits behind a flood of wrong ones from elsewhere.
/// When no thread can be created, the worker queue's policy refuses the verification: it
/// answers `nil` too (the newest suspect one first), never runs on the caller's thread.
///
/// ```swift
/// let pool = BCryptPool(workers: 1, queueCapacity: 16)
/// guard let matched = await pool.run(lane: .clean, { authenticator.verify(user: u, password: p) }) else { /* 429 */ }
/// ```
public final class BCryptPool: Sendable {
    /// Which queue a verification waits in.
    public enum Lane: Sendable {
        /// From an address without recent failures: runs first.
        case clean
        /// From an address with recent failures (``AuthFailureTracker``): runs after every
        /// clean one, and fills at most half the queue.
        case suspect
    }

    private struct Job {
        var work: @Sendable () -> Bool
        var continuation: CheckedContinuation<Bool?, Never>
    }

    private struct State {
        var clean: [Job] = []
        var suspect: [Job] = []
        var queued: Int { clean.count + suspect.count }

        /// The job to run next: clean before suspect, oldest first.
        mutating func next() -> Job? {
            if !clean.isEmpty { return clean.removeFirst() }
            if !suspect.isEmpty { return suspect.removeFirst() }
            return nil
        }

        /// The job to refuse: the newest suspect one, else the newest clean one.
        mutating func last() -> Job? {
            suspect.popLast() ?? clean.popLast()
        }
    }

    /// Verifications run at once (at least 1).
    public let workers: Int
    /// Verifications that may wait (at least 1); more are refused.
    public let queueCapacity: Int
    // Each job of the worker queue runs (or refuses) one verification, chosen by lane when it
    // starts: the queue is FIFO, the lanes are not.
    private let state = Mutex(State())
    private let threads: WorkerQueue
    private let refusedCount = Atomic<Int>(0)

    /// Creates a pool; its threads start when work arrives.
    ///
    /// - Parameters:
    ///   - workers: Verifications run at once (at least 1).
    ///   - queueCapacity: Verifications that may wait (at least 1); more are refused.
    public convenience init(workers: Int = 1, queueCapacity: Int = 16) {
        self.init(workers: workers, queueCapacity: queueCapacity,
                  starter: { name, body throws(ThreadStartError) in try NamedThread.start(name: name, body) })
    }

    /// A pool whose threads are started by `starter` (tests inject failures).
    init(workers: Int, queueCapacity: Int, starter: @escaping WorkerQueue.Starter) {
        self.workers = max(1, workers)
        self.queueCapacity = max(1, queueCapacity)
        self.threads = WorkerQueue(name: "http-bcrypt", maxThreads: self.workers, starter: starter)
    }

    /// Verifications waiting for a worker.
    public var queued: Int { state.withLock { $0.queued } }

    /// Verifications refused because the queue was full.
    public var refused: Int { refusedCount.load(ordering: .relaxed) }

    /// Runs `work` on a pool thread; `nil` without running it when the lane's queue is full or
    /// no thread can be created.
    public func run(lane: Lane, _ work: @escaping @Sendable () -> Bool) async -> Bool? {
        await withCheckedContinuation { continuation in
            let job = Job(work: work, continuation: continuation)
            let accepted = state.withLock { state -> Bool in
                let room = lane == .clean ? queueCapacity : max(1, queueCapacity / 2)
                guard state.queued < room else { return false }
                if lane == .clean { state.clean.append(job) } else { state.suspect.append(job) }
                return true
            }
            guard accepted else {
                refusedCount.add(1, ordering: .relaxed)
                continuation.resume(returning: nil)
                return
            }
            threads.submit(WorkerQueue.Job(run: { [self] in
                guard let job = state.withLock({ $0.next() }) else { return }
                job.continuation.resume(returning: job.work())
            }, refuse: { [self] _ in
                state.withLock { $0.last() }?.continuation.resume(returning: nil)
            }))
        }
    }
}
