import Synchronization
import Testing
@testable import WPLogging

@Suite(.timeLimit(.minutes(3))) struct SerialWorkerTests {
    /// What the jobs saw, shared with the escaping job closures.
    final class Journal: Sendable {
        struct State {
            var active = 0
            var overlaps = 0
            var runs: [Int: [Int]] = [:]
        }
        let state = Mutex(State())

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

        var snapshot: State { state.withLock { $0 } }
    }

    @Test func jobsRunInSubmissionOrderAndWaitCoversThemAll() {
        let worker = SerialWorker(name: "test-worker")
        let journal = Journal()
        for index in 0..<200 {
            worker.async { journal.run(submitter: 0, index: index) }
        }
        worker.wait()
        #expect(journal.snapshot.runs[0] == Array(0..<200))
    }

    @Test func jobsNeverOverlapEvenWithConcurrentSubmitters() async {
        let worker = SerialWorker(name: "test-worker")
        let journal = Journal()
        await withTaskGroup(of: Void.self) { group in
            for submitter in 0..<8 {
                group.addTask {
                    for index in 0..<50 {
                        worker.async { journal.run(submitter: submitter, index: index) }
                    }
                }
            }
        }
        worker.wait()
        let result = journal.snapshot
        #expect(result.overlaps == 0)
        #expect(result.runs.count == 8)
        for (submitter, indices) in result.runs {
            #expect(indices == Array(0..<50), "submitter \(submitter) ran out of order")
        }
    }

    @Test func waitReturnsAtOnceWhenIdleAndTheWorkerIsReusable() {
        let worker = SerialWorker(name: "test-worker")
        worker.wait()
        let journal = Journal()
        worker.async { journal.run(submitter: 0, index: 0) }
        worker.wait()
        #expect(journal.snapshot.runs[0] == [0])
        worker.async { journal.run(submitter: 0, index: 1) }
        worker.wait()
        #expect(journal.snapshot.runs[0] == [0, 1])
    }
}
