#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Testing
import WPRuntime
import WPTestThreads

/// `.ownThreads`: a test's body and its child tasks run on the test process's own threads, so
/// tests that block do not hold Swift's cooperative pool (two threads on a 2-core machine).
@Suite(.ownThreads, .timeLimit(.minutes(2)), .enabled(if: TestThreadExecutor.maxThreads > 0, "WPEXPORTER_TEST_THREADS=0 keeps test bodies on Swift's pool"))
struct OwnThreadsTests {
    /// The calling thread's name, as the kernel shows it.
    private static func currentName() -> String {
        let descriptor = open("/proc/thread-self/comm", O_RDONLY)
        guard descriptor >= 0 else { return "" }
        defer { close(descriptor) }
        var buffer = [UInt8](repeating: 0, count: 32)
        let count = read(descriptor, &buffer, buffer.count)
        return String(decoding: buffer.prefix(max(0, count)), as: UTF8.self).filter { $0 != "\n" }
    }

    @Test func aSynchronousBodyRunsOnATestThread() {
        #expect(Self.currentName() == "test-thread")
    }

    @Test func anAsynchronousBodyAndItsChildTasksRunOnTestThreads() async {
        async let child = Self.currentName()
        #expect(Self.currentName() == "test-thread")
        #expect(await child == "test-thread")
    }

    /// Four child tasks that each block until all four are blocked: on the two threads of a
    /// 2-core machine's cooperative pool they would wait for each other until the deadline.
    @Test func childTasksThatBlockDoNotWaitForEachOther() async {
        let parties = min(4, TestThreadExecutor.maxThreads)
        let barrier = ConditionLock(0)
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
