import Synchronization
import WPRuntime

/// A small, bounded set of threads for bcrypt verifications, separate from the event loop and
/// from Swift's shared task pool.
///
/// At most `workers` verifications run at once, each on a thread of its own that the pool
/// starts when work arrives and that ends when the queue is empty. At most `queueCapacity`
/// wait; past that ``run(lane:_:)`` answers `nil` at once (the caller sends `429`). Work from
/// the ``Lane/clean`` lane always runs before work from the ``Lane/suspect`` lane (addresses
/// with recent failures), and suspect work may fill only half the queue, so a correct
/// password never waits behind a flood of wrong ones from elsewhere.
///
/// ```swift
/// let pool = BCryptPool(workers: 1, queueCapacity: 16)
/// guard let matched = await pool.run(lane: .clean, { authenticator.verify(user: u, password: p) }) else { /* 429 */ }
/// ```
public final class BCryptPool: Sendable {
    /// Which queue a verification waits in.
    public enum Lane: Sendable { case clean, suspect }

    private struct Job {
        var work: @Sendable () -> Bool
        var continuation: CheckedContinuation<Bool?, Never>
    }

    private struct State {
        var clean: [Job] = []
        var suspect: [Job] = []
        var running = 0
        var queued: Int { clean.count + suspect.count }

        mutating func next() -> Job? {
            if !clean.isEmpty { return clean.removeFirst() }
            if !suspect.isEmpty { return suspect.removeFirst() }
            return nil
        }
    }

    public let workers: Int
    public let queueCapacity: Int
    private let state = Mutex(State())
    private let refusedCount = Atomic<Int>(0)

    /// - Parameters:
    ///   - workers: Verifications run at once (at least 1).
    ///   - queueCapacity: Verifications that may wait (at least 1); more are refused.
    public init(workers: Int = 1, queueCapacity: Int = 16) {
        self.workers = max(1, workers)
        self.queueCapacity = max(1, queueCapacity)
    }

    /// Verifications waiting for a worker.
    public var queued: Int { state.withLock { $0.queued } }

    /// Verifications refused because the queue was full.
    public var refused: Int { refusedCount.load(ordering: .relaxed) }

    /// Runs `work` on a pool thread; `nil` without running it when the lane's queue is full.
    public func run(lane: Lane, _ work: @escaping @Sendable () -> Bool) async -> Bool? {
        await withCheckedContinuation { continuation in
            let job = Job(work: work, continuation: continuation)
            let (accepted, spawn) = state.withLock { state -> (Bool, Bool) in
                let room = lane == .clean ? queueCapacity : max(1, queueCapacity / 2)
                guard state.queued < room else { return (false, false) }
                if lane == .clean { state.clean.append(job) } else { state.suspect.append(job) }
                guard state.running < workers else { return (true, false) }
                state.running += 1
                return (true, true)
            }
            guard accepted else {
                refusedCount.add(1, ordering: .relaxed)
                continuation.resume(returning: nil)
                return
            }
            if spawn, !startWorker() {
                // No thread to be had: run the queue on this thread rather than strand it.
                drain()
            }
        }
    }

    /// Runs queued jobs until none is left, then gives up its worker slot.
    private func drain() {
        while true {
            let job = state.withLock { state -> Job? in
                guard let job = state.next() else {
                    state.running -= 1
                    return nil
                }
                return job
            }
            guard let job else { return }
            job.continuation.resume(returning: job.work())
        }
    }

    private func startWorker() -> Bool {
        (try? NamedThread.start(name: "http-bcrypt") { self.drain() }) != nil
    }
}
