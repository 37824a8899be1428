import Testing
import WPTestThreads
import WPLogging
@testable import WPServer

/// The waits the server tests use end when their task is cancelled (a test's time limit), so a
/// signal that never comes fails that test and never hangs the run.
@Suite(.ownThreads, .timeLimit(.minutes(2))) struct TestHelperTests {
    @Test func aLogWaitEndsWhenItsTaskIsCancelled() async {
        let log = LogWaiter()
        let waiting = Task { await log.waitFor("never logged") }
        waiting.cancel()
        await waiting.value
        // A message logged before the wait is found at once.
        log.logger().info("seen")
        await log.waitFor("seen")
    }

    @Test func aGateWaitEndsWhenItsTaskIsCancelled() async {
        let gate = OpenOnceGate()
        let waiting = Task { await gate.wait() }
        waiting.cancel()
        await waiting.value
        gate.open()
        await gate.wait()
    }
}
