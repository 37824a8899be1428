import Synchronization

/// A `Clock` that only moves when a test advances it.
///
/// `sleep(until:)` really suspends until ``advance(by:)`` moves `now` past the deadline (or the
/// task is cancelled), so code under test that sleeps on an injected clock runs
/// deterministically without real waiting. ``waitForSleepers(_:)`` lets a test wait until the
/// code under test is parked in `sleep` before advancing.
public final class ManualClock: Clock, Sendable {
    /// An instant of a manual clock: the time it has been advanced by since it was created.
    public struct Instant: InstantProtocol, Sendable, Hashable, CustomStringConvertible {
        /// The time since the clock's start: what ``ManualClock/advance(by:)`` has added up to.
        public var offset: Duration
        /// The instant `offset` after the clock's start.
        public init(offset: Duration) { self.offset = offset }
        /// The instant `duration` later (earlier when negative).
        public func advanced(by duration: Duration) -> Instant { Instant(offset: offset + duration) }
        /// The time from this instant to `other`, negative when `other` is earlier.
        public func duration(to other: Instant) -> Duration { other.offset - offset }
        /// Whether `lhs` is earlier than `rhs`.
        public static func < (lhs: Instant, rhs: Instant) -> Bool { lhs.offset < rhs.offset }
        /// `ManualClock.Instant(<offset>)`, the offset as `Duration` prints it.
        public var description: String { "ManualClock.Instant(\(offset))" }
    }

    private struct Sleeper {
        let id: UInt64
        let deadline: Instant
        let continuation: CheckedContinuation<Void, any Error>
    }

    private struct State {
        var now = Instant(offset: .zero)
        var nextID: UInt64 = 0
        var sleepers: [Sleeper] = []
        var sleeperWaiters: [(condition: SleeperCondition, continuation: CheckedContinuation<Void, Never>)] = []
    }

    /// What a task waiting on the sleepers waits for.
    private enum SleeperCondition {
        /// At least this many sleepers.
        case count(Int)
        /// A sleeper whose deadline is at or after this instant.
        case deadline(Instant)

        func holds(for sleepers: [Sleeper]) -> Bool {
            switch self {
            case .count(let count): return sleepers.count >= count
            case .deadline(let instant): return sleepers.contains { $0.deadline >= instant }
            }
        }
    }

    private let state = Mutex(State())
    private let willRegisterSleeper: (@Sendable () -> Void)?

    /// Creates a clock at offset zero with no sleeper.
    public init() {
        willRegisterSleeper = nil
    }

    /// For tests of the clock itself: `willRegisterSleeper` runs inside every `sleep`, after its
    /// first cancellation check and before the sleeper is registered (where a cancellation
    /// arriving from another thread would otherwise be lost).
    public init(willRegisterSleeper: @escaping @Sendable () -> Void) {
        self.willRegisterSleeper = willRegisterSleeper
    }

    /// The current instant: where ``advance(by:)`` has moved the clock to.
    public var now: Instant { state.withLock { $0.now } }
    /// Zero: the clock moves by exactly what a test advances it by.
    public var minimumResolution: Duration { .zero }

    /// The number of tasks currently suspended in `sleep`.
    public var sleeperCount: Int { state.withLock { $0.sleepers.count } }

    /// Suspends until ``advance(by:)`` moves `now` to `deadline` or past it; returns at once when
    /// it already has.
    ///
    /// - Parameters:
    ///   - deadline: The instant to wake at.
    ///   - tolerance: Ignored: the clock wakes every sleeper exactly at its deadline.
    /// - Throws: `CancellationError` when the task is cancelled before the deadline is reached (the
    ///   sleeper is removed).
    public func sleep(until deadline: Instant, tolerance: Duration? = nil) async throws {
        try Task.checkCancellation()
        let id = state.withLock { state -> UInt64 in
            state.nextID += 1
            return state.nextID
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                willRegisterSleeper?()
                // A cancellation that came after the check above ran `onCancel` before there was
                // a sleeper to remove: seen here under the lock, or `onCancel` runs after this.
                let outcome: Result<Bool, CancellationError> = state.withLock { state in
                    if Task.isCancelled { return .failure(CancellationError()) }
                    if deadline <= state.now { return .success(true) }
                    state.sleepers.append(Sleeper(id: id, deadline: deadline, continuation: continuation))
                    return .success(false)
                }
                switch outcome {
                case .failure(let error): continuation.resume(throwing: error)
                case .success(true): continuation.resume()
                case .success(false): notifySleeperWaiters()
                }
            }
        } onCancel: {
            let sleeper: Sleeper? = state.withLock { state in
                guard let index = state.sleepers.firstIndex(where: { $0.id == id }) else { return nil }
                return state.sleepers.remove(at: index)
            }
            sleeper?.continuation.resume(throwing: CancellationError())
        }
    }

    /// Moves `now` forward by `duration` and wakes every sleeper whose deadline has passed,
    /// earliest deadline first.
    public func advance(by duration: Duration) {
        let due: [Sleeper] = state.withLock { state in
            state.now = state.now.advanced(by: duration)
            let now = state.now
            let due = state.sleepers.filter { $0.deadline <= now }.sorted { $0.deadline < $1.deadline }
            state.sleepers.removeAll { $0.deadline <= now }
            return due
        }
        for sleeper in due { sleeper.continuation.resume() }
    }

    /// Suspends until at least `count` tasks are sleeping on this clock.
    public func waitForSleepers(_ count: Int = 1) async {
        await waitFor(.count(count))
    }

    /// Suspends until a task sleeps on this clock until `deadline` or later: a way to know that
    /// one particular timer (say a long timeout) has started, whatever else is sleeping.
    public func waitForSleeper(until deadline: Instant) async {
        await waitFor(.deadline(deadline))
    }

    private func waitFor(_ condition: SleeperCondition) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let ready: Bool = state.withLock { state in
                if condition.holds(for: state.sleepers) { return true }
                state.sleeperWaiters.append((condition: condition, continuation: continuation))
                return false
            }
            if ready { continuation.resume() }
        }
    }

    private func notifySleeperWaiters() {
        let ready: [CheckedContinuation<Void, Never>] = state.withLock { state in
            let sleepers = state.sleepers
            let ready = state.sleeperWaiters.filter { $0.condition.holds(for: sleepers) }.map(\.continuation)
            state.sleeperWaiters.removeAll { $0.condition.holds(for: sleepers) }
            return ready
        }
        for continuation in ready { continuation.resume() }
    }
}
