import FoundationEssentials
import Synchronization
import Testing
import WPLogging
import WPRuntime
import WPTestThreads
import WPWallClock

@Suite(.ownThreads, .timeLimit(.minutes(2))) struct WallClockTests {
    static let start = Date(timeIntervalSince1970: 1_795_315_039.123)

    @Test func theSystemClockReadsTheTimeOfDayAtEachRead() {
        let before = Date()
        let read = WallClock.system.now
        let after = Date()
        #expect(before <= read && read <= after)
    }

    @Test func aFixedClockAlwaysReadsItsDate() {
        let clock = WallClock.fixed(Self.start)
        #expect(clock.now == Self.start)
        #expect(clock.now == Self.start)
    }

    @Test func aFollowingClockMovesWithTheManualClockFractionsIncluded() {
        let manual = ManualClock()
        let wall = WallClock.following(manual, from: Self.start)
        #expect(wall.now == Self.start)
        manual.advance(by: .seconds(90))
        #expect(wall.now == Self.start.addingTimeInterval(90))
        manual.advance(by: .milliseconds(250))
        #expect(abs(wall.now.timeIntervalSince(Self.start) - 90.25) < 1e-6)
    }

    @Test func eachReadCallsTheClosureAgain() {
        let seconds = Mutex<Double>(0)
        let wall = WallClock { Date(timeIntervalSince1970: seconds.withLock { $0 }) }
        #expect(wall.now.timeIntervalSince1970 == 0)
        seconds.withLock { $0 = 1_000 }
        #expect(wall.now.timeIntervalSince1970 == 1_000)
    }

    @Test func unixSecondsAreWholeSecondsRoundedTowardThePast() {
        #expect(WallClock.fixed(Self.start).unixSeconds == 1_795_315_039)
        #expect(WallClock.fixed(Date(timeIntervalSince1970: 59.999)).unixSeconds == 59)
        #expect(WallClock.fixed(Date(timeIntervalSince1970: -0.5)).unixSeconds == -1)
    }

    @Test func theTimestampIsTheSameInstantToTheMicrosecond() {
        let wall = WallClock.fixed(Self.start)
        #expect(wall.timestamp == LogTimestamp(seconds: 1_795_315_039, nanoseconds: 123_000_000))
        #expect(wall.timestamp.text(.rfc3339Seconds) == "2026-11-22T02:37:19Z")
    }
}
