import Synchronization
import Testing
import WPTestThreads
import WPRuntime

/// Long enough never to pass on a loaded machine: the waits below end on a signal.
private let patience = Deadline(after: .seconds(60))

/// A job that blocks its thread until opened, for tests that need a busy queue.
final class Gate: Sendable {
    private let lock = WPConditionLock((entered: false, open: false))

    /// Blocks until ``open()``; tells ``waitUntilEntered()`` first.
    func pass() {
        lock.withLock { $0.entered = true }
        lock.broadcast()
        lock.wait(until: patience, for: { $0.open }) { _, _ in }
    }

    func waitUntilEntered() {
        lock.wait(until: patience, for: { $0.entered }) { _, _ in }
    }

    func open() {
        lock.withLock { $0.open = true }
        lock.broadcast()
    }
}

/// What the jobs saw, shared with the escaping job closures. A `WPConditionLock` (a pthread
/// mutex, which ThreadSanitizer follows), not a `Mutex`.
final class Journal: Sendable {
    struct State {
        var active = 0
        var overlaps = 0
        var runs: [Int: [Int]] = [:]
        var refused: [Int] = []
        var errors: [ThreadStartError] = []
    }
    let state = WPConditionLock(State())

    func run(submitter: Int, index: Int) {
        state.withLock { state in
            state.active += 1
            if state.active > 1 { state.overlaps += 1 }
        }
        state.withLock { state in
            state.runs[submitter, default: []].append(index)
            state.active -= 1
        }
    }

    func refuse(_ index: Int, _ error: any Error) {
        state.withLock { state in
            state.refused.append(index)
            if let error = error as? ThreadStartError { state.errors.append(error) }
        }
    }

    func job(submitter: Int = 0, index: Int) -> WorkerQueue.Job {
        WorkerQueue.Job(run: { self.run(submitter: submitter, index: index) }, refuse: { self.refuse(index, $0) })
    }

    var snapshot: State { state.withLock { $0 } }
}

/// Starts real threads, fails while told to, and counts the threads that ended.
final class Starter: Sendable {
    private let lock = WPConditionLock((failing: false, started: 0, ended: 0))

    var start: WorkerQueue.Starter {
        { name, body throws(ThreadStartError) in
            if self.lock.withLock({ $0.failing }) { throw ThreadStartError(name: name, code: 11) }
            self.lock.withLock { $0.started += 1 }
            try NamedThread.start(name: name) {
                body()
                self.lock.withLock { $0.ended += 1 }
                self.lock.broadcast()
            }
        }
    }

    func fail(_ failing: Bool) { lock.withLock { $0.failing = failing } }

    var started: Int { lock.withLock { $0.started } }

    /// Waits until every thread started so far has ended.
    func waitUntilAllEnded() -> Bool {
        lock.wait(until: patience, for: { $0.ended == $0.started }) { _, ended in ended }
    }
}

@Suite(.ownThreads, .timeLimit(.minutes(3))) struct WorkerQueueTests {
    @Test func jobsRunInSubmissionOrderAndTheWaitCoversThemAll() {
        let queue = WorkerQueue(name: "test-worker")
        let journal = Journal()
        for index in 0..<200 { queue.submit(journal.job(index: index)) }
        #expect(queue.waitForJobs(until: patience))
        #expect(journal.snapshot.runs[0] == Array(0..<200))
    }

    @Test func aSerialQueueNeverOverlapsJobsEvenWithConcurrentSubmitters() async {
        let queue = WorkerQueue(name: "test-worker")
        let journal = Journal()
        await withTaskGroup(of: Void.self) { group in
            for submitter in 0..<8 {
                group.addTask {
                    for index in 0..<50 { queue.submit(journal.job(submitter: submitter, index: index)) }
                }
            }
        }
        #expect(queue.waitForJobs(until: patience))
        let result = journal.snapshot
        #expect(result.overlaps == 0)
        #expect(result.runs.count == 8)
        for (submitter, indices) in result.runs {
            #expect(indices == Array(0..<50), "submitter \(submitter) ran out of order")
        }
    }

    @Test func theWaitReturnsAtOnceWhenIdleAndTheQueueIsReusable() {
        let queue = WorkerQueue(name: "test-worker")
        #expect(queue.waitForJobs(until: Deadline(after: .zero)))
        let journal = Journal()
        queue.submit(journal.job(index: 0))
        #expect(queue.waitForJobs(until: patience))
        queue.submit(journal.job(index: 1))
        #expect(queue.waitForJobs(until: patience))
        #expect(journal.snapshot.runs[0] == [0, 1])
    }

    @Test func latestWinsReplacesTheJobStillWaiting() {
        let queue = WorkerQueue(name: "test-writer", order: .latestWins)
        let gate = Gate()
        let journal = Journal()
        queue.submit(WorkerQueue.Job(run: { gate.pass() }, refuse: { _ in }))
        gate.waitUntilEntered()
        for index in 0..<5 { queue.submit(journal.job(index: index)) }
        #expect(queue.waitingCount == 1)
        gate.open()
        #expect(queue.waitForJobs(until: patience))
        #expect(journal.snapshot.runs[0] == [4])
        #expect(journal.snapshot.refused.isEmpty)
    }

    @Test func theWaitEndsAtItsDeadlineWhileAJobRuns() {
        let queue = WorkerQueue(name: "test-worker")
        let gate = Gate()
        queue.submit(WorkerQueue.Job(run: { gate.pass() }, refuse: { _ in }))
        gate.waitUntilEntered()
        #expect(!queue.waitForJobs(until: Deadline(after: .milliseconds(20))))
        gate.open()
        #expect(queue.waitForJobs(until: patience))
    }

    @Test func theWaitCoversOnlyJobsSubmittedBeforeIt() {
        let queue = WorkerQueue(name: "test-pool", maxThreads: 2)
        let gate = Gate()
        let journal = Journal()
        queue.submit(journal.job(index: 0))
        #expect(queue.waitForJobs(until: patience))
        queue.submit(WorkerQueue.Job(run: { gate.pass() }, refuse: { _ in })) // after the wait's mark
        gate.waitUntilEntered()
        queue.submit(journal.job(index: 1))
        // The blocked job was submitted before this wait, so it does not settle.
        #expect(!queue.waitForJobs(until: Deadline(after: .milliseconds(20))))
        gate.open()
        #expect(queue.waitForJobs(until: patience))
        #expect(journal.snapshot.runs[0]?.sorted() == [0, 1])
    }

    @Test func aPoolRunsAtMostMaxThreadsAtOnce() {
        let starter = Starter()
        let queue = WorkerQueue(name: "test-pool", maxThreads: 3, idleTime: .zero, starter: starter.start)
        let gates = (0..<5).map { _ in Gate() }
        for gate in gates { queue.submit(WorkerQueue.Job(run: { gate.pass() }, refuse: { _ in })) }
        for gate in gates.prefix(3) { gate.waitUntilEntered() }
        #expect(queue.threadCount == 3)
        #expect(queue.waitingCount == 2)
        for gate in gates { gate.open() }
        #expect(queue.waitForJobs(until: patience))
        #expect(starter.started == 3)
    }

    @Test func threadsEndWhenIdle() {
        let starter = Starter()
        let serial = WorkerQueue(name: "test-worker", starter: starter.start)
        let pool = WorkerQueue(name: "test-pool", maxThreads: 4, idleTime: .milliseconds(10), starter: starter.start)
        let journal = Journal()
        for index in 0..<20 {
            serial.submit(journal.job(index: index))
            pool.submit(journal.job(submitter: 1, index: index))
        }
        #expect(starter.waitUntilAllEnded())
        #expect(serial.threadCount == 0)
        #expect(pool.threadCount == 0)
        #expect(journal.snapshot.runs[0]?.count == 20)
        #expect(journal.snapshot.runs[1]?.count == 20)
    }

    /// A pool that grew to 6 threads for a burst, then runs one job at a time: idle threads are
    /// woken in turn, so each runs a job within the idle time and none would time out; the
    /// threads no job needed for an idle time end, down to the one the jobs need.
    @Test func threadsABurstLeftBehindEndWhileJobsKeepComing() {
        let starter = Starter()
        let pool = WorkerQueue(name: "test-pool", maxThreads: 6, idleTime: .milliseconds(50), starter: starter.start)
        let gates = (0..<6).map { _ in Gate() }
        for gate in gates { pool.submit(WorkerQueue.Job(run: { gate.pass() }, refuse: { _ in })) }
        for gate in gates { gate.waitUntilEntered() }
        #expect(pool.threadCount == 6)
        for gate in gates { gate.open() }
        #expect(pool.waitForJobs(until: patience))
        // One job at a time, each waited for, until the pool is down to one thread (or the
        // patience runs out: without trimming the six stay, each woken in turn).
        let journal = Journal()
        let deadline = Deadline(after: .seconds(60))
        var index = 0
        while pool.threadCount > 1 && !deadline.hasPassed {
            pool.submit(journal.job(index: index))
            #expect(pool.waitForJobs(until: deadline))
            index += 1
        }
        // At most the one the jobs need: on a loaded machine the last one may itself reach its
        // idle time between two jobs (the jobs then start a thread again).
        #expect(pool.threadCount <= 1)
        #expect(journal.snapshot.runs[0]?.count == index)
        // Two at once still get two threads.
        let pair = (0..<2).map { _ in Gate() }
        for gate in pair { pool.submit(WorkerQueue.Job(run: { gate.pass() }, refuse: { _ in })) }
        for gate in pair { gate.waitUntilEntered() }
        #expect(pool.threadCount == 2)
        for gate in pair { gate.open() }
        #expect(pool.waitForJobs(until: patience))
    }

    @Test func aJobWithNoThreadIsRefusedWithTheErrorAndTheNextSubmitTriesAgain() {
        let starter = Starter()
        let queue = WorkerQueue(name: "test-worker", starter: starter.start)
        let journal = Journal()
        starter.fail(true)
        queue.submit(journal.job(index: 0))
        // Refused on the submitting thread before submit returns; never run there.
        #expect(journal.snapshot.refused == [0])
        #expect(journal.snapshot.errors == [ThreadStartError(name: "test-worker", code: 11)])
        #expect(journal.snapshot.runs.isEmpty)
        #expect(queue.threadCount == 0)
        #expect(queue.waitingCount == 0)
        #expect(queue.waitForJobs(until: Deadline(after: .zero)))
        starter.fail(false)
        queue.submit(journal.job(index: 1))
        #expect(queue.waitForJobs(until: patience))
        #expect(journal.snapshot.runs[0] == [1])
        #expect(journal.snapshot.refused == [0])
    }

    @Test func aPoolThatCannotGrowRefusesOnlyTheJobTheNewThreadWasToTake() {
        let starter = Starter()
        let queue = WorkerQueue(name: "test-pool", maxThreads: 2, starter: starter.start)
        let gate = Gate()
        let journal = Journal()
        queue.submit(WorkerQueue.Job(run: { gate.pass() }, refuse: { _ in }))
        gate.waitUntilEntered()
        starter.fail(true)
        queue.submit(journal.job(index: 0))
        #expect(journal.snapshot.refused == [0])
        #expect(queue.threadCount == 1)
        gate.open()
        #expect(queue.waitForJobs(until: patience))
        #expect(journal.snapshot.runs.isEmpty)
    }

    @Test func aWithdrawnJobIsRefusedWithTheGivenErrorAndNeverRuns() {
        struct Withdrawn: Error {}
        final class Key: Sendable {}
        let queue = WorkerQueue(name: "test-worker")
        let gate = Gate()
        let key = Key()
        let refused = WPConditionLock<(any Error)?>(nil)
        queue.submit(WorkerQueue.Job(run: { gate.pass() }, refuse: { _ in }))
        gate.waitUntilEntered()
        let ran = Atomic(false)
        queue.submit(WorkerQueue.Job(key: ObjectIdentifier(key), run: { ran.store(true, ordering: .relaxed) },
                                     refuse: { error in refused.withLock { $0 = error } }))
        #expect(queue.withdraw(ObjectIdentifier(key), with: Withdrawn()))
        #expect(!queue.withdraw(ObjectIdentifier(key), with: Withdrawn()))
        gate.open()
        #expect(queue.waitForJobs(until: patience))
        let didRun = ran.load(ordering: .relaxed)
        #expect(!didRun)
        #expect(refused.withLock { $0 is Withdrawn })
    }
}
