import Glibc
import Synchronization
import Testing
import WPTestThreads
@testable import WPServer
import WPRuntime

/// A latch a pool job waits on until the test opens it (a semaphore: no sleeping, no timing).
final class Latch: @unchecked Sendable {
    private let semaphore = UnsafeMutablePointer<sem_t>.allocate(capacity: 1)
    init() { sem_init(semaphore, 0, 0) }
    deinit {
        sem_destroy(semaphore)
        semaphore.deallocate()
    }
    func wait() { sem_wait(semaphore) }
    func open(_ count: Int = 1) { for _ in 0..<count { sem_post(semaphore) } }
}

/// Counts entries into a blocked job, so a test knows the worker is busy.
final class Entered: Sendable {
    private let stream = AsyncStream<Void>.makeStream()
    func signal() { stream.continuation.yield() }
    func wait() async {
        var iterator = stream.stream.makeAsyncIterator()
        _ = await iterator.next()
    }
}

@Suite(.ownThreads, .timeLimit(.minutes(3))) struct BCryptPoolTests {
    /// Occupies the pool's single worker until the returned latch opens; returns once it is busy.
    static func occupy(_ pool: BCryptPool) async -> (latch: Latch, job: Task<Bool?, Never>) {
        let latch = Latch()
        let entered = Entered()
        let job = Task { await pool.run(lane: .clean) { entered.signal(); latch.wait(); return true } }
        await entered.wait()
        return (latch, job)
    }

    /// Waits (yielding, never sleeping) until `count` jobs wait in the pool.
    static func waitUntilQueued(_ pool: BCryptPool, _ count: Int) async {
        while pool.queued < count { await Task.yield() }
    }

    @Test func fullQueueRefusesAtOnceAndSuspectsGetHalf() async throws {
        let pool = BCryptPool(workers: 1, queueCapacity: 2)
        let (latch, busyJob) = await Self.occupy(pool)
        // The worker is busy: one suspect job may wait (half the queue), a second may not.
        async let suspect = pool.run(lane: .suspect) { false }
        await Self.waitUntilQueued(pool, 1)
        #expect(await pool.run(lane: .suspect) { false } == nil)
        // A clean job still finds room; then the queue is full for everyone.
        async let clean = pool.run(lane: .clean) { true }
        await Self.waitUntilQueued(pool, 2)
        #expect(await pool.run(lane: .clean) { true } == nil)
        #expect(pool.refused == 2)
        latch.open()
        #expect(await busyJob.value == true)
        #expect(await suspect == false)
        #expect(await clean == true)
    }

    @Test func cleanWorkRunsBeforeSuspectWork() async throws {
        let pool = BCryptPool(workers: 1, queueCapacity: 8)
        let order = EventRecorder()
        let (latch, busyJob) = await Self.occupy(pool)
        async let suspect = pool.run(lane: .suspect) {
            order.requestHandled(RequestEvent(handler: "suspect", method: "", status: 0, durationSeconds: 0))
            return false
        }
        await Self.waitUntilQueued(pool, 1)
        async let clean = pool.run(lane: .clean) {
            order.requestHandled(RequestEvent(handler: "clean", method: "", status: 0, durationSeconds: 0))
            return true
        }
        await Self.waitUntilQueued(pool, 2)
        latch.open()
        _ = await (busyJob.value, suspect, clean)
        // Queued second, the clean job ran first.
        #expect(order.all.map(\.handler) == ["clean", "suspect"])
    }

    @Test func cachedCredentialsPassAFullPoolAndOthersGet429() async throws {
        let pool = BCryptPool(workers: 1, queueCapacity: 1)
        let authenticator = try WPBasicAuthenticator(users: ["prometheus": BasicAuthTests.hash("s3cret")], pool: pool)
        let handler = BasicAuthHandler(wrapping: BasicAuthTests.inner, authenticator: authenticator)
        func request(_ password: String) -> WPHTTPRequest {
            var request = WPHTTPRequest(method: "GET", target: "/metrics")
            request.headers.add(name: "Authorization", value: BasicAuthTests.authorization("prometheus", password))
            request.remoteAddress = "127.0.0.1:4000"
            return request
        }
        #expect(try await handler.handle(request("s3cret")).status == 200)
        let verifications = authenticator.bcryptVerifications
        // Flood: the worker is stuck and the queue is full.
        let (latch, busyJob) = await Self.occupy(pool)
        async let queued = pool.run(lane: .clean) { false }
        await Self.waitUntilQueued(pool, 1)
        let refused = try await handler.handle(request("wrong"))
        #expect(refused.status == 429)
        #expect(refused.headers["Retry-After"] == "1")
        // The correct password is answered from the cache, without the pool.
        #expect(try await handler.handle(request("s3cret")).status == 200)
        #expect(authenticator.bcryptVerifications == verifications)
        latch.open()
        _ = await (busyJob.value, queued)
    }

    @Test func failuresSlowAnAddressAndASuccessForgivesIt() {
        let now = Mutex<Int64>(0)
        let tracker = AuthFailureTracker(threshold: 3, window: .seconds(60), capacity: 2,
                                         delayStep: .milliseconds(100), maximumDelay: .milliseconds(250),
                                         clock: { now.withLock { $0 } })
        #expect(tracker.recordFailure(of: "10.0.0.1") == .zero)
        #expect(tracker.recordFailure(of: "10.0.0.1") == .zero)
        #expect(!tracker.isSuspect("10.0.0.1"))
        #expect(tracker.recordFailure(of: "10.0.0.1") == .milliseconds(100))
        #expect(tracker.isSuspect("10.0.0.1"))
        #expect(tracker.recordFailure(of: "10.0.0.1") == .milliseconds(200))
        #expect(tracker.recordFailure(of: "10.0.0.1") == .milliseconds(250))
        #expect(!tracker.isSuspect("10.0.0.2"))
        tracker.recordSuccess(of: "10.0.0.1")
        #expect(tracker.failures(of: "10.0.0.1") == 0)
        // A quiet window forgets.
        for _ in 0..<3 { tracker.recordFailure(of: "10.0.0.3") }
        #expect(tracker.isSuspect("10.0.0.3"))
        now.withLock { $0 += 61_000_000_000 }
        #expect(!tracker.isSuspect("10.0.0.3"))
        // Bounded: more addresses than the capacity never grow the table past it.
        for index in 0..<10 { tracker.recordFailure(of: "10.0.1.\(index)") }
        #expect(tracker.failures(of: "10.0.1.9") == 1)
    }

    @Test func hostDropsThePort() {
        #expect(AuthFailureTracker.host(of: "127.0.0.1:5555") == "127.0.0.1")
        #expect(AuthFailureTracker.host(of: "[::1]:5555") == "::1")
        #expect(AuthFailureTracker.host(of: nil) == "")
    }
}

@Suite(.ownThreads, .timeLimit(.minutes(3))) struct BCryptPoolThreadTests {
    @Test func aVerificationWithNoThreadIsRefusedNotRunOnTheCaller() async {
        let failing = Atomic(true)
        let pool = BCryptPool(workers: 1, queueCapacity: 4, starter: { name, body throws(ThreadStartError) in
            if failing.load(ordering: .relaxed) { throw ThreadStartError(name: name, code: 11) }
            try NamedThread.start(name: name, body)
        })
        let ran = Atomic(false)
        let refused = await pool.run(lane: .clean) {
            ran.store(true, ordering: .relaxed)
            return true
        }
        #expect(refused == nil)
        let didRun = ran.load(ordering: .relaxed)
        #expect(!didRun)
        #expect(pool.queued == 0)
        failing.store(false, ordering: .relaxed)
        #expect(await pool.run(lane: .clean) { true } == true)
    }
}
