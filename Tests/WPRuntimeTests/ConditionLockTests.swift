import Testing
import WPTestThreads
import WPRuntime

@Suite(.ownThreads, .timeLimit(.minutes(3))) struct ConditionLockTests {
    @Test func aWaitWhoseConditionHoldsReturnsAtOnce() {
        let lock = WPConditionLock(3)
        let result = lock.wait(until: Deadline(after: .zero), for: { $0 == 3 }) { value, satisfied in
            value += 1
            return satisfied
        }
        #expect(result)
        #expect(lock.withLock { $0 } == 4)
    }

    @Test func aWaitEndsUnsatisfiedAtItsDeadline() {
        let lock = WPConditionLock(false)
        let start = ContinuousClock.now
        let satisfied = lock.wait(until: Deadline(after: .milliseconds(20)), for: { $0 }) { _, satisfied in satisfied }
        #expect(!satisfied)
        #expect(ContinuousClock.now - start >= .milliseconds(20))
    }

    @Test func aSignalFromAnotherThreadEndsTheWait() throws {
        let lock = WPConditionLock(0)
        try NamedThread.start(name: "test-signal") {
            lock.withLock { $0 = 1 }
            lock.signal()
        }
        let value = lock.wait(until: Deadline(after: .seconds(60)), for: { $0 == 1 }) { value, _ in value }
        #expect(value == 1)
    }

    @Test func aBroadcastWakesEveryWaiter() throws {
        let lock = WPConditionLock((open: false, woken: 0))
        let done = WPConditionLock(0)
        for index in 0..<3 {
            try NamedThread.start(name: "test-waiter-\(index)") {
                lock.wait(until: Deadline(after: .seconds(60)), for: { $0.open }) { state, _ in state.woken += 1 }
                done.withLock { $0 += 1 }
                done.broadcast()
            }
        }
        lock.withLock { $0.open = true }
        lock.broadcast()
        let finished = done.wait(until: Deadline(after: .seconds(60)), for: { $0 == 3 }) { _, satisfied in satisfied }
        #expect(finished)
        #expect(lock.withLock { $0.woken } == 3)
    }
}

@Suite(.ownThreads, .timeLimit(.minutes(2))) struct DeadlineTests {
    @Test func millisecondsRoundUp() {
        #expect(Deadline.milliseconds(.nanoseconds(1)) == 1)
        #expect(Deadline.milliseconds(.milliseconds(1)) == 1)
        #expect(Deadline.milliseconds(.milliseconds(1) + .nanoseconds(1)) == 2)
        #expect(Deadline.milliseconds(.seconds(2)) == 2000)
    }

    @Test func millisecondsAreZeroForNothingLeft() {
        #expect(Deadline.milliseconds(.zero) == 0)
        #expect(Deadline.milliseconds(.seconds(-5)) == 0)
    }

    @Test func millisecondsAreCappedAtInt32Max() {
        #expect(Deadline.milliseconds(.seconds(Int64(Int32.max))) == Int32.max)
        #expect(Deadline.milliseconds(.seconds(Int64.max)) == Int32.max)
    }

    @Test func aPassedDeadlineHasNothingLeft() {
        let deadline = Deadline(after: .seconds(-1))
        #expect(deadline.hasPassed)
        #expect(deadline.remaining == .zero)
        #expect(deadline.remainingMilliseconds == 0)
    }

    @Test func aFutureDeadlineHasTimeLeftRoundedUp() {
        let deadline = Deadline(after: .seconds(3600))
        #expect(!deadline.hasPassed)
        #expect(deadline.remaining <= .seconds(3600))
        #expect(deadline.remainingMilliseconds > 3_500_000)
        #expect(deadline.remainingMilliseconds <= 3_600_000)
        #expect(Deadline(at: deadline.end) == deadline)
    }
}
