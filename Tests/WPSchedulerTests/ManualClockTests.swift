import Testing
import WPTestSupport

@Suite struct ManualClockTests {
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
