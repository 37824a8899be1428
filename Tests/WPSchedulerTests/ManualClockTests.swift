import Testing
import WPTestThreads
import WPRuntime
import WPTestSupport

@Suite(.ownThreads, .timeLimit(.minutes(3))) struct ManualClockTests {
    @Test func sleepResumesOnlyWhenAdvancedPastDeadline() async throws {
        let clock = ManualClock()
        let start = clock.now
        async let woke: Duration = {
            try await clock.sleep(until: start.advanced(by: .seconds(5)), tolerance: nil)
            return start.duration(to: clock.now)
        }()
        await clock.waitForSleepers(1)
        clock.advance(by: .seconds(4))
        #expect(clock.sleeperCount == 1)
        clock.advance(by: .seconds(1))
        #expect(try await woke == .seconds(5))
        #expect(clock.sleeperCount == 0)
    }

    @Test func cancellationEndsSleep() async {
        let clock = ManualClock()
        let task = Task { try await clock.sleep(for: .seconds(60)) }
        await clock.waitForSleepers(1)
        task.cancel()
        let result = await task.result
        #expect(throws: CancellationError.self) { try result.get() }
        #expect(clock.sleeperCount == 0)
    }
}

/// A cancellation arriving while `sleep` registers its sleeper ends the sleep. Before, a cancel
/// landing between the cancellation check and the registration left the sleeper parked for
/// good: a task group racing a reply against a timeout on this clock then never finished (a
/// hung `TokenLifetimeTests` run on a loaded machine). The hook puts the cancellation exactly
/// in that window, where the loaded machine put it by chance.
@Suite(.ownThreads, .timeLimit(.minutes(3))) struct ManualClockCancellationRaceTests {
    @Test func aCancellationDuringRegistrationEndsTheSleep() async {
        let clock = ManualClock(willRegisterSleeper: { withUnsafeCurrentTask { $0?.cancel() } })
        let result = await Task { try await clock.sleep(for: .seconds(60)) }.result
        #expect(throws: CancellationError.self) { try result.get() }
        #expect(clock.sleeperCount == 0)
    }
}
