import Synchronization
import Testing
import WPTestThreads
import WPLogging
import WPScheduler
import WPRuntime
import WPTestSupport

/// A one-shot gate a test opens; waiting on it ends early if the waiting task is cancelled.
final class Gate: Sendable {
    private let state = Mutex<(open: Bool, waiters: [CheckedContinuation<Void, Never>])>((false, []))

    func wait() async {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let resume = state.withLock { state -> Bool in
                    if state.open { return true }
                    state.waiters.append(continuation)
                    return false
                }
                if resume { continuation.resume() }
            }
        } onCancel: { open() }
    }

    func open() {
        let waiters = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            state.open = true
            defer { state.waiters = [] }
            return state.waiters
        }
        for waiter in waiters { waiter.resume() }
    }
}

/// What the scheduler's skip observer was told.
final class SkipReports: Sendable {
    let values = Mutex<[Int]>([])
}

/// Records each tick with the clock's time at which the work started.
struct Recorder: Sendable {
    let stream: AsyncStream<(tick: Tick, at: Duration)>
    let continuation: AsyncStream<(tick: Tick, at: Duration)>.Continuation
    init() { (stream, continuation) = AsyncStream.makeStream() }
}

@Suite(.ownThreads, .timeLimit(.minutes(4))) struct SchedulerTests {
    let clock = ManualClock()
    let recorder = Recorder()

    /// The `skipped` counter each time the scheduler reported skipped ticks.
    let skipReports = SkipReports()

    /// What the scheduler logged (every scheduler made here calls a run "refresh").
    let log = InMemoryLogSink()

    private func makeScheduler(interval: Duration = .seconds(5), shutdown: Duration = .seconds(5),
                               work: @escaping @Sendable (Tick) async -> Void = { _ in }) -> TickScheduler<ManualClock> {
        let (clock, recorder, skipReports) = (self.clock, self.recorder, self.skipReports)
        let origin = clock.now
        return TickScheduler(configuration: .init(interval: interval, gracefulShutdownTimeout: shutdown, workName: "refresh"),
                         clock: clock, logger: log.logger(),
                         onSkip: { statistics in skipReports.values.withLock { $0.append(statistics.skipped) } }) { tick in
            recorder.continuation.yield((tick, origin.duration(to: clock.now)))
            await work(tick)
        }
    }

    @Test func firstTickIsImmediateAndLaterTicksDoNotDrift() async throws {
        let scheduler = makeScheduler { tick in
            // Each run takes 2 s of clock time; the next tick must still come at n × 5 s.
            try? await self.clock.sleep(for: .seconds(2))
        }
        let task = Task { await scheduler.run() }
        var ticks = recorder.stream.makeAsyncIterator()
        let first = try #require(await ticks.next())
        #expect(first.tick == Tick(index: 0, offset: .zero))
        #expect(first.at == .zero)
        for n in 1...3 {
            await clock.waitForSleepers(2)       // the run's own sleep + the scheduler's
            clock.advance(by: .seconds(2))       // run finishes at n×5 − 3
            await waitForCompleted(scheduler, n)
            clock.advance(by: .seconds(3))
            let next = try #require(await ticks.next())
            #expect(next.tick.index == n)
            #expect(next.at == .seconds(5 * n))
        }
        task.cancel()
        await clock.waitForSleepers(2)           // run 3's sleep + the shutdown timeout
        clock.advance(by: .seconds(2))
        await task.value
        #expect(scheduler.statistics == stats(started: 4, completed: 4, skipped: 0))
    }

    @Test func tickDuringRunningCollectionIsSkippedAndCounted() async throws {
        let gate = Gate()
        let scheduler = makeScheduler { tick in
            if tick.index == 0 { await gate.wait() }
        }
        let task = Task { await scheduler.run() }
        var ticks = recorder.stream.makeAsyncIterator()
        _ = await ticks.next()
        await clock.waitForSleepers(1)
        clock.advance(by: .seconds(5))           // tick 1 finds tick 0 still running
        await clock.waitForSleepers(1)           // the scheduler is asleep again, for tick 2
        #expect(scheduler.statistics == stats(started: 1, completed: 0, skipped: 1))
        #expect(skipReports.values.withLock { $0 } == [1], "the skip is reported while the run still hangs")
        #expect(log.records.map(\.message) == ["refresh still in progress; tick skipped"], "in the caller's words")
        gate.open()
        await waitForCompleted(scheduler, 1)
        clock.advance(by: .seconds(5))
        let next = try #require(await ticks.next())
        #expect(next.tick.index == 2)
        task.cancel()
        await task.value
        #expect(scheduler.statistics.skipped == 1)
        #expect(scheduler.statistics.started == 2)
        #expect(skipReports.values.withLock { $0 } == [1], "ticks that run are not reported")
    }

    @Test func ticksMissedWhileAsleepAreCountedNotReplayed() async throws {
        let scheduler = makeScheduler()
        let task = Task { await scheduler.run() }
        var ticks = recorder.stream.makeAsyncIterator()
        _ = await ticks.next()
        await clock.waitForSleepers(1)
        clock.advance(by: .seconds(17))          // ticks 1 and 2 passed; tick 3 is due
        let next = try #require(await ticks.next())
        #expect(next.tick == Tick(index: 3, offset: .seconds(15)))
        await clock.waitForSleepers(1)
        #expect(scheduler.statistics.skipped == 2)
        #expect(skipReports.values.withLock { $0 } == [2], "missed ticks are reported once, before the run")
        clock.advance(by: .seconds(3))           // t = 20 s: tick 4, on the original grid
        #expect(try #require(await ticks.next()).tick.index == 4)
        task.cancel()
        await task.value
    }

    @Test func missedTickWarningsComeAtMostOnceAMinuteWithEveryMissCounted() async throws {
        let scheduler = makeScheduler()
        let task = Task { await scheduler.run() }
        var ticks = recorder.stream.makeAsyncIterator()
        _ = await ticks.next()
        func miss(advancing seconds: Int64) async throws {
            await clock.waitForSleepers(1)
            clock.advance(by: .seconds(seconds))
            _ = try #require(await ticks.next())
        }
        func warnings() -> [String] {
            log.records.filter { $0.message == "ticks missed while the scheduler could not wake" }
                .map { "missed=\($0.fields["missed"].map { "\($0)" } ?? "none")" }
        }
        try await miss(advancing: 17)            // t = 17 s: ticks 1 and 2 missed, tick 3 runs
        #expect(warnings() == ["missed=2"])
        try await miss(advancing: 15)            // t = 32 s: ticks 4 and 5 missed, within the minute
        try await miss(advancing: 15)            // t = 47 s: ticks 7 and 8 missed
        #expect(warnings() == ["missed=2"], "no second line within a minute")
        try await miss(advancing: 30)            // t = 77 s: a minute after the first warning
        #expect(warnings() == ["missed=2", "missed=9"], "the next warning counts every tick missed since the last")
        await clock.waitForSleepers(1)
        #expect(scheduler.statistics.skipped == 11, "every missed tick is counted")
        task.cancel()
        await task.value
    }

    /// Schedulers sharing their warnings (the exporter's, one per server) write one line a
    /// minute for all of them, with the ticks missed since the last and by how many schedulers.
    @Test func sharedMissedTickWarningsAreOneLineAMinuteForAll() async throws {
        let shared = MissedTickWarnings<ManualClock>()
        let schedulers = (0..<2).map { _ in
            TickScheduler(configuration: .init(interval: .seconds(5), workName: "refresh"), clock: clock, logger: log.logger(),
                          missedTicks: shared) { _ in }
        }
        let tasks = schedulers.map { scheduler in Task { await scheduler.run() } }
        func warnings() -> [String] {
            log.records.filter { $0.message == "ticks missed while the schedulers could not wake" }
                .map { record in ["missed", "schedulers"].map { "\($0)=\(record.fields[$0].map { "\($0)" } ?? "none")" }.joined(separator: " ") }
        }
        await clock.waitForSleepers(2)
        clock.advance(by: .seconds(17))          // t = 17 s: each misses ticks 1 and 2
        await clock.waitForSleepers(2)
        #expect(warnings() == ["missed=2 schedulers=1"], "one line for both: the second's misses wait for the next")
        clock.advance(by: .seconds(60))          // t = 77 s: each misses ticks 4 to 14
        await clock.waitForSleepers(2)
        // The second line counts both schedulers' misses since the first (2 + 11); which of
        // the two wrote it, and so whether the other had reported yet, depends on which woke first.
        let lines = warnings()
        #expect(lines.count == 2)
        #expect(lines.last == "missed=13 schedulers=2" || lines.last == "missed=13 schedulers=1", "\(lines)")
        // 13 missed each (a tick whose previous run's task had not ended yet is skipped too).
        #expect(schedulers.allSatisfy { $0.statistics.skipped >= 13 }, "every missed tick counted per scheduler")
        for task in tasks { task.cancel() }
        for task in tasks { await task.value }
    }

    /// The shared count itself, in a known order: the first report warns, the rest of the
    /// minute adds up (ticks and distinct schedulers), the first report a minute later warns
    /// with all of it.
    @Test func sharedWarningsCountTicksAndSchedulersBetweenLines() {
        let shared = MissedTickWarnings<ManualClock>()
        final class Scheduler {}
        let (a, b, c) = (Scheduler(), Scheduler(), Scheduler())
        let start = clock.now
        #expect(shared.report(2, from: ObjectIdentifier(a), at: start)! == (2, 1))
        #expect(shared.report(3, from: ObjectIdentifier(b), at: start.advanced(by: .seconds(10))) == nil)
        #expect(shared.report(4, from: ObjectIdentifier(b), at: start.advanced(by: .seconds(30))) == nil)
        #expect(shared.report(1, from: ObjectIdentifier(c), at: start.advanced(by: .seconds(59))) == nil)
        #expect(shared.report(5, from: ObjectIdentifier(a), at: start.advanced(by: .seconds(60)))! == (13, 3))
        #expect(shared.report(1, from: ObjectIdentifier(a), at: start.advanced(by: .seconds(61))) == nil)
        withExtendedLifetime((a, b, c)) {}
    }

    @Test func cancellationLetsRunningCollectionFinish() async throws {
        let gate = Gate()
        let finished = Mutex(false)
        let scheduler = makeScheduler { _ in
            await gate.wait()
            finished.withLock { $0 = true }
        }
        let task = Task { await scheduler.run() }
        var ticks = recorder.stream.makeAsyncIterator()
        _ = await ticks.next()
        await clock.waitForSleepers(1)
        task.cancel()
        await clock.waitForSleepers(1)           // the shutdown timeout is now running
        gate.open()
        await task.value
        #expect(finished.withLock { $0 })
        #expect(scheduler.statistics == stats(started: 1, completed: 1, skipped: 0))
    }

    @Test func collectionOutlivingShutdownTimeoutIsCancelled() async throws {
        let gate = Gate()
        let scheduler = makeScheduler(shutdown: .seconds(3)) { _ in await gate.wait() }
        let task = Task { await scheduler.run() }
        var ticks = recorder.stream.makeAsyncIterator()
        _ = await ticks.next()
        await clock.waitForSleepers(1)
        task.cancel()
        await clock.waitForSleepers(1)
        clock.advance(by: .seconds(3))
        await task.value
        #expect(scheduler.statistics.abandoned == 1)
        #expect(log.records.last?.message == "refresh still in progress after the graceful shutdown timeout; cancelled it")
        #expect(log.records.last?.fields["timeout_s"] == .double(3))
        #expect(scheduler.statistics.started == 1)
    }

    @Test func cancelledBeforeStartNeverRuns() async {
        let scheduler = makeScheduler()
        let task = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            await scheduler.run()
        }
        await task.value
        #expect(scheduler.statistics == stats(started: 0, completed: 0, skipped: 0))
    }

    @Test func waitUntilStartedResumesOnceTicking() async {
        let scheduler = makeScheduler()
        let task = Task { await scheduler.run() }
        await scheduler.waitUntilStarted()
        var ticks = recorder.stream.makeAsyncIterator()
        #expect(await ticks.next()?.tick.index == 0)
        task.cancel()
        await task.value
    }

    /// Yields until the scheduler has completed `count` runs (a run's bookkeeping happens on
    /// its own task, just after the work returns).
    private func waitForCompleted(_ scheduler: TickScheduler<ManualClock>, _ count: Int) async {
        while scheduler.statistics.completed < count { await Task.yield() }
    }

    private func stats(started: Int, completed: Int, skipped: Int) -> TickScheduler<ManualClock>.Statistics {
        var s = TickScheduler<ManualClock>.Statistics()
        s.started = started
        s.completed = completed
        s.skipped = skipped
        return s
    }
}
