import Synchronization
public import WPLogging
import WPRuntime

/// Runs a piece of work at a fixed rate, never twice at once.
///
/// Tick `n` is due at `start + n × interval` (drift-free: a slow collection does not push
/// later ticks back). The first tick runs immediately. A tick that comes due while the
/// previous run is still in progress is skipped and counted, as is any tick that passed
/// entirely while the scheduler could not wake (for example a suspended machine): the
/// scheduler never runs missed ticks back to back to "catch up".
///
/// `run()` returns when its task is cancelled. A run in progress at that moment may finish
/// within ``Configuration/gracefulShutdownTimeout``; after that it is cancelled and `run()`
/// returns without waiting further. Cancelled before the first tick, `run()` returns at once
/// and the work never runs.
///
/// ```swift
/// let scheduler = TickScheduler(configuration: .init(interval: .seconds(5), workName: "refresh"),
///                           clock: ContinuousClock(), logger: log) { tick in await cache.refresh() }
/// await scheduler.run()   // until the task is cancelled
/// ```
public final class TickScheduler<C: Clock>: Sendable where C.Duration == Duration {
    /// Scheduling settings.
    public struct Configuration: Sendable, Equatable {
        /// Time between the starts of consecutive ticks. Must be positive.
        public var interval: Duration
        /// How long a run in progress may take to finish after cancellation.
        public var gracefulShutdownTimeout: Duration
        /// What one run is called in the scheduler's log messages (`"run"`; the exporter says
        /// `"collection"`): "collection still in progress; tick skipped".
        public var workName: String

        /// Creates settings; by default a tick every 5 s, 5 s to finish after cancellation.
        public init(interval: Duration = .seconds(5), gracefulShutdownTimeout: Duration = .seconds(5),
                    workName: String = "run") {
            self.interval = interval
            self.gracefulShutdownTimeout = gracefulShutdownTimeout
            self.workName = workName
        }
    }

    /// Counters describing what the scheduler has done so far.
    public struct Statistics: Sendable, Equatable {
        /// Ticks whose work was started.
        public var started = 0
        /// Runs that returned.
        public var completed = 0
        /// Ticks that came due while a run was in progress or while the scheduler could not wake.
        public var skipped = 0
        /// Runs cancelled because they outlived the graceful shutdown timeout.
        public var abandoned = 0
        /// Creates the counters at zero.
        public init() {}
    }

    /// Work for one tick: its 0-based index and its due time as an offset from the first tick.
    public typealias Work = @Sendable (Tick) async -> Void
    /// Told of skipped ticks, with the counters after counting them.
    public typealias SkipObserver = @Sendable (Statistics) -> Void

    private let configuration: Configuration
    private let clock: C
    /// The shortest time between two warnings about missed ticks: a scheduler that keeps
    /// missing ticks (a host too slow for the interval, one of many servers) warns once a
    /// minute with the ticks missed since its last warning, not once a tick. Every missed tick
    /// is still counted (``Statistics/skipped``).
    public static var missedTickWarningInterval: Duration { .seconds(60) }
    private let logger: WPLogger
    private let work: Work
    private let onSkip: SkipObserver?
    private let state = Mutex(State())

    private struct State {
        var statistics = Statistics()
        var runInProgress = false
        var started = false
        var startWaiters: [CheckedContinuation<Void, Never>] = []
    }

    private let missedTicks: MissedTickWarnings<C>?

    /// Creates a scheduler. Nothing runs until ``run()``.
    ///
    /// - Parameters:
    ///   - configuration: interval and shutdown timeout. An interval that is not positive is
    ///     treated as one second (configuration validation rejects it before this point).
    ///   - clock: the clock ticks are measured on; tests inject a manual clock.
    ///   - logger: receives a debug line per skipped tick and a warning per abandoned run.
    ///   - onSkip: called on the scheduler's task, at the time of the tick, whenever ticks were
    ///     skipped (the previous run still in progress, or ticks missed while the scheduler
    ///     could not wake), before any run that tick starts. It must not wait on I/O (the
    ///     next tick waits for it). While a run hangs, it is the only thing that still
    ///     happens every interval.
    ///   - missedTicks: the warnings about missed ticks shared with other schedulers (one for
    ///     all of them, at most once a minute); `nil`: this scheduler warns on its own, at most
    ///     once a minute.
    ///   - work: what to do on each tick.
    public init(configuration: Configuration = Configuration(), clock: C, logger: WPLogger,
                onSkip: SkipObserver? = nil, missedTicks: MissedTickWarnings<C>? = nil, work: @escaping Work) {
        var configuration = configuration
        if configuration.interval <= .zero { configuration.interval = .seconds(1) }
        self.configuration = configuration
        self.clock = clock
        self.logger = logger
        self.work = work
        self.onSkip = onSkip
        self.missedTicks = missedTicks
    }

    /// A snapshot of the counters.
    public var statistics: Statistics { state.withLock { $0.statistics } }

    /// Suspends until ``run()`` has started ticking (returns at once if it already has).
    public func waitUntilStarted() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let ready = state.withLock { state -> Bool in
                if state.started { return true }
                state.startWaiters.append(continuation)
                return false
            }
            if ready { continuation.resume() }
        }
    }

    /// Ticks until the calling task is cancelled, then lets a run in progress finish within the
    /// graceful shutdown timeout.
    public func run() async {
        guard !Task.isCancelled else { return }
        let start = clock.now
        let waiters = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            state.started = true
            defer { state.startWaiters = [] }
            return state.startWaiters
        }
        for waiter in waiters { waiter.resume() }

        var next = 0
        var inFlight: Task<Void, Never>?
        // Missed ticks are warned about at most once per `missedTickWarningInterval`; the next
        // warning counts the ticks missed meanwhile.
        var unwarnedMisses = 0
        var lastMissWarning: C.Instant?
        while !Task.isCancelled {
            do {
                try await clock.sleep(until: start.advanced(by: configuration.interval * next), tolerance: nil)
            } catch {
                break
            }
            // The latest tick that is due now; any between `next` and it were missed.
            let elapsed = start.duration(to: clock.now)
            let due = max(next, Int(elapsed / configuration.interval))
            let tick = Tick(index: due, offset: configuration.interval * due)
            let missed = due - next
            let (startedRun, statistics) = state.withLock { state -> (Bool, Statistics) in
                state.statistics.skipped += missed
                if state.runInProgress {
                    state.statistics.skipped += 1
                    return (false, state.statistics)
                }
                state.runInProgress = true
                state.statistics.started += 1
                return (true, state.statistics)
            }
            if missed > 0, let missedTicks {
                if let summary = missedTicks.report(missed, from: ObjectIdentifier(self), at: clock.now) {
                    logger.warn("ticks missed while the schedulers could not wake",
                                ["missed": .int(summary.missed), "schedulers": .int(summary.schedulers), "tick": .int(due)])
                }
            } else if missed > 0 {
                unwarnedMisses += missed
                let now = clock.now
                if lastMissWarning.map({ $0.duration(to: now) >= Self.missedTickWarningInterval }) ?? true {
                    logger.warn("ticks missed while the scheduler could not wake",
                                ["missed": .int(unwarnedMisses), "tick": .int(due)])
                    unwarnedMisses = 0
                    lastMissWarning = now
                }
            }
            if missed > 0 || !startedRun { onSkip?(statistics) }
            if startedRun {
                // Unstructured on purpose: cancelling `run()` must not cancel a run in progress
                // before its graceful shutdown timeout.
                inFlight = Task { [work] in
                    await work(tick)
                    self.state.withLock { state in
                        state.runInProgress = false
                        state.statistics.completed += 1
                    }
                }
            } else {
                logger.debug("\(configuration.workName) still in progress; tick skipped", ["tick": .int(due)])
            }
            next = due + 1
        }
        if let inFlight { await finish(inFlight) }
    }

    /// Waits for `task` up to the graceful shutdown timeout, then cancels it. Returns at the
    /// timeout even if the cancelled work ignores cancellation.
    private func finish(_ task: Task<Void, Never>) async {
        guard state.withLock({ $0.runInProgress }) else { return }
        let (clock, timeout) = (self.clock, configuration.gracefulShutdownTimeout)
        // Fresh tasks: the caller is cancelled, and the timeout must really sleep.
        let finished = await BoundedWait.completes(within: timeout, on: clock) { done in
            Task {
                await task.value
                done()
            }
        }
        if !finished {
            task.cancel()
            state.withLock { $0.statistics.abandoned += 1 }
            logger.warn("\(configuration.workName) still in progress after the graceful shutdown timeout; cancelled it",
                        ["timeout_s": .seconds(timeout)])
        }
    }
}

/// One scheduler tick.
public struct Tick: Sendable, Equatable {
    /// 0-based index; tick `n` is due at `start + n × interval`.
    public var index: Int
    /// Due time as an offset from the first tick.
    public var offset: Duration

    /// Creates tick `index`, due `offset` after the first.
    public init(index: Int, offset: Duration) {
        self.index = index
        self.offset = offset
    }
}

/// The warnings about missed ticks of several schedulers as one (the exporter's: one scheduler
/// per WinPower server): at most one per ``TickScheduler/missedTickWarningInterval`` for all of
/// them, saying how many ticks were missed since the last one and by how many schedulers.
/// A thousand servers on a host too slow for their interval wrote a warning each a minute
/// (about 170 KB); now one line a minute says the same. Every missed tick is still counted
/// per scheduler (``TickScheduler/Statistics/skipped``).
///
/// ```swift
/// let shared = MissedTickWarnings<ContinuousClock>()
/// let a = TickScheduler(clock: clock, logger: logger, missedTicks: shared) { _ in … }
/// ```
public final class MissedTickWarnings<C: Clock>: Sendable where C.Duration == Duration {
    private struct State {
        var lastWarning: C.Instant?
        var missed = 0
        var schedulers: Set<ObjectIdentifier> = []
    }

    private let state = Mutex(State())

    /// Creates the shared warnings, none given yet.
    public init() {}

    /// Counts `missed` ticks of `scheduler` at `now`; the totals to warn about when a warning is
    /// due (the first, or ``TickScheduler/missedTickWarningInterval`` after the last), else `nil`.
    package func report(_ missed: Int, from scheduler: ObjectIdentifier, at now: C.Instant) -> (missed: Int, schedulers: Int)? {
        state.withLock { state in
            state.missed += missed
            state.schedulers.insert(scheduler)
            guard state.lastWarning.map({ $0.duration(to: now) >= TickScheduler<C>.missedTickWarningInterval }) ?? true else {
                return nil
            }
            defer { (state.lastWarning, state.missed, state.schedulers) = (now, 0, []) }
            return (state.missed, state.schedulers.count)
        }
    }
}
