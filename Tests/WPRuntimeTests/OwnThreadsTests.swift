import Testing
import WPRuntime
import WPTestThreads

/// `.ownThreads`: a test's body and its child tasks run on the test process's own threads, so
/// tests that block do not hold Swift's cooperative pool (two threads on a 2-core machine).
@Suite(.ownThreads, .timeLimit(.minutes(3)), .enabled(if: TestThreadExecutor.maxThreads > 0, "WPEXPORTER_TEST_THREADS=0 keeps test bodies on Swift's pool"))
struct OwnThreadsTests {
    @Test func aSynchronousBodyRunsOnATestThread() {
        #expect(NamedThreadTests.currentName() == "test-thread")
    }

    @Test func anAsynchronousBodyAndItsChildTasksRunOnTestThreads() async {
        async let child = NamedThreadTests.currentName()
        #expect(NamedThreadTests.currentName() == "test-thread")
        #expect(await child == "test-thread")
    }

    /// Four child tasks that each block until all four are blocked: on the two threads of a
    /// 2-core machine's cooperative pool they would wait for each other until the deadline.
    @Test func childTasksThatBlockDoNotWaitForEachOther() async {
        let parties = min(4, TestThreadExecutor.maxThreads)
        let barrier = WPConditionLock(0)
        let met = await withTaskGroup(of: Bool.self) { group in
            for _ in 0..<parties {
                group.addTask {
                    barrier.withLock { $0 += 1 }
                    barrier.broadcast()
                    return barrier.wait(until: Deadline(after: .seconds(60)), for: { $0 >= parties }) { _, met in met }
                }
            }
            var all = true
            for await met in group { all = all && met }
            return all
        }
        #expect(met, "every party saw the others arrive while it blocked")
    }
}
