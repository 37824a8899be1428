#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
public import Testing
import WPRuntime

/// Runs test bodies on threads of the test process's own, not on Swift's cooperative pool.
///
/// The cooperative pool has one thread per core: two on the 2-core machines the suite must
/// pass on. A test that blocks its thread (a condition wait, `fsync`, a blocking socket, a
/// thread join, or simply a long computation while other processes keep the cores busy) then
/// holds half of it, and two such tests stall every other test, their time limits included:
/// on a loaded machine whole suites failed at once with "Time limit was exceeded" although
/// none of them hung. With this trait a test's body, and the child tasks it creates, run on a
/// ``TestThreadExecutor`` instead; Swift's pool is left to the libraries' own tasks.
///
/// Apply it to a suite (it applies to every test in it) or to a test:
///
/// ```swift
/// @Suite(.ownThreads, .timeLimit(.minutes(1))) struct WorkerQueueTests {
///     @Test func drainsInOrder() async throws { ... }
/// }
/// ```
public struct OwnThreadsTrait: SuiteTrait, TestTrait, TestScoping {
    public var isRecursive: Bool { true }

    public func provideScope(for test: Test, testCase: Test.Case?,
                             performing function: @Sendable () async throws -> Void) async throws {
        // Every test says when it starts and ends, so a run that stops making progress ends by
        // itself, naming what never ended (``TestWatchdog``).
        let token = test.isSuite ? nil : TestWatchdog.shared.started(test.id.description)
        defer { if let token { TestWatchdog.shared.ended(token) } }
        guard TestThreadExecutor.maxThreads > 0 else { return try await function() } // kept on Swift's pool
        try await withTaskExecutorPreference(TestThreadExecutor.shared) {
            try await function()
        }
    }
}

extension Trait where Self == OwnThreadsTrait {
    /// Runs the test's body on threads of its own (``OwnThreadsTrait``).
    public static var ownThreads: Self { OwnThreadsTrait() }
}

/// A task executor running each job on a thread of a ``WorkerQueue`` (named `test-thread`, up
/// to ``maxThreads`` at once, ending after a few idle seconds); further jobs wait in order.
///
/// A job that finds no thread (the process's thread limit) runs on Swift's global executor
/// instead: the test may then be slower, never lost.
public final class TestThreadExecutor: TaskExecutor, Sendable {
    /// The executor every ``OwnThreadsTrait`` test shares.
    public static let shared = TestThreadExecutor()

    /// The most test bodies running at once: `WPEXPORTER_TEST_THREADS` when set, else 16.
    /// Enough that tests blocking at the same time never hold the others up for long, few
    /// enough that the tests with short deadlines of their own (a 200 ms API timeout, a 5 s
    /// SNMP client timeout) are not starved of CPU on two cores. `0` leaves test bodies on
    /// Swift's pool, as without the trait: the ThreadSanitizer run of CI does, where every test
    /// is several times slower and the suite's timing was tuned on that pool.
    public static let maxThreads: Int = {
        guard let text = getenv("WPEXPORTER_TEST_THREADS").map({ String(cString: $0) }), let value = Int(text), value >= 0 else {
            return 16
        }
        return value
    }()

    private let queue = WorkerQueue(name: "test-thread", maxThreads: max(1, TestThreadExecutor.maxThreads), idleTime: .seconds(5))

    public func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        queue.submit(WorkerQueue.Job(run: { [self] in
            job.runSynchronously(on: asUnownedTaskExecutor())
        }, refuse: { _ in
            globalConcurrentExecutor.enqueue(ExecutorJob(job))
        }))
    }
}
