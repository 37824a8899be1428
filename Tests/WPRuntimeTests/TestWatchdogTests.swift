import Synchronization
import Testing
import WPTestThreads

/// The test process's watchdog: a run with tests running and none starting or ending for the
/// limit is reported with every test that never ended (oldest first), once; the cleanups (the
/// child processes to kill) run first; progress or no test running is no stall.
@Suite(.ownThreads, .timeLimit(.minutes(2))) struct TestWatchdogTests {
    @Test func aStallNamesTheTestsThatNeverEndedAndRunsTheCleanups() throws {
        let reports = Mutex<[String]>([])
        let watchdog = TestWatchdog(stallLimit: .seconds(600), watching: false) { text in reports.withLock { $0.append(text) } }
        let start = ContinuousClock.now
        #expect(watchdog.stall(at: start + .seconds(3_600)) == nil, "no test running: nothing to wait for")
        let hung = watchdog.started("ServerHardeningTests/aPipelinedFlood()")
        let finished = watchdog.started("NUTSessionTests/listsAndReads()")
        let other = watchdog.started("CrashTests/killDuringSave()")
        watchdog.ended(finished)
        #expect(watchdog.stall(at: .now + .seconds(599)) == nil, "within the limit")
        let killed = Mutex(0)
        let cleanup = watchdog.onStall { killed.withLock { $0 += 1 } }
        let withdrawn = watchdog.onStall { killed.withLock { $0 += 100 } }
        watchdog.withdraw(withdrawn)
        let report = try #require(watchdog.stall(at: .now + .seconds(601)))
        #expect(report.contains("no test started or ended for 60"), "\(report)")
        let lines = report.split(separator: "\n").filter { $0.hasPrefix("  ") }
        #expect(lines.count == 2)
        #expect(lines.first?.hasPrefix("  ServerHardeningTests/aPipelinedFlood() (started ") == true, "oldest first: \(lines)")
        #expect(lines.last?.hasPrefix("  CrashTests/killDuringSave() (started ") == true)
        #expect(watchdog.stall(at: .now + .seconds(700)) == nil, "reported once")
        watchdog.fire(report)
        #expect(killed.withLock { $0 } == 1, "the registered cleanup ran, the withdrawn one did not")
        #expect(reports.withLock { $0 } == [report])
        _ = (hung, other, cleanup)
    }

    @Test func progressKeepsTheRunAlive() {
        let watchdog = TestWatchdog(stallLimit: .seconds(600), watching: false) { _ in Issue.record("no stall expected") }
        let long = watchdog.started("a long test")
        #expect(watchdog.stall(at: .now + .seconds(500)) == nil)
        watchdog.ended(watchdog.started("a short one"))   // progress now
        #expect(watchdog.stall(at: .now + .seconds(500)) == nil)
        watchdog.ended(long)
        #expect(watchdog.stall(at: .now + .seconds(10_000)) == nil, "nothing running")
        let off = TestWatchdog(stallLimit: .zero, watching: false) { _ in Issue.record("turned off") }
        _ = off.started("a test that never ends")
        #expect(off.stall(at: .now + .seconds(10_000)) == nil, "0 turns it off")
    }
}
