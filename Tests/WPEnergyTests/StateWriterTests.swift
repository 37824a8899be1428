import Synchronization
import Testing
import WPTestThreads
@testable import WPEnergy
import WPRuntime
import WPStorage

/// The energy writer's thread-start policy: a save with no thread is a failed save that its
/// completion and waiters hear of at once, and the next save tries again.
@Suite(.ownThreads, .timeLimit(.minutes(3))) struct StateWriterTests {
    @Test func aSaveWithNoThreadFailsAtOnceAndTheNextSaveTriesAgain() async {
        let failing = Atomic(true)
        let saves = Atomic(0)
        let completions = Mutex<[(UInt64, StorageError?)]>([])
        let writer = StateWriter(save: { _ in
            saves.add(1, ordering: .relaxed)
            return nil
        }, starter: { name, body throws(ThreadStartError) in
            if failing.load(ordering: .relaxed) { throw ThreadStartError(name: name, code: 11) }
            try NamedThread.start(name: name, body)
        })
        let completion: StateWriter.Completion = { generation, failure in completions.withLock { $0.append((generation, failure)) } }

        #expect(writer.submit(EnergyState(), generation: 1, completion: completion))
        guard case .failed = await writer.saved(1, timeout: .seconds(60)) else {
            Issue.record("a save with no thread did not fail")
            return
        }
        #expect(completions.withLock { $0.count } == 1)
        #expect(completions.withLock { $0.first?.1 } != nil)
        #expect(saves.load(ordering: .relaxed) == 0)

        failing.store(false, ordering: .relaxed)
        #expect(writer.submit(EnergyState(), generation: 2, completion: completion))
        #expect(await writer.saved(2, timeout: .seconds(60)) == .saved)
        #expect(saves.load(ordering: .relaxed) == 1)
        #expect(completions.withLock { $0.last?.1 } == nil)
    }

    /// A wait that times out while the save hangs says so and leaves no waiter behind; the save,
    /// once it ends, is seen by the next wait.
    @Test func aWaitThatTimesOutWithdrawsItsWaiter() async {
        let gate = WPConditionLock(false)
        let writer = StateWriter(save: { _ in
            gate.wait(until: Deadline(after: .seconds(120)), for: { $0 }) { _, _ in }
            return nil
        })
        let ignore: StateWriter.Completion = { _, _ in }
        #expect(writer.submit(EnergyState(), generation: 1, completion: ignore))
        #expect(await writer.saved(1, timeout: .milliseconds(20)) == .timedOut)
        #expect(await writer.saved(1, timeout: .milliseconds(20)) == .timedOut)
        #expect(writer.waiterCount == 0)
        gate.withLock { $0 = true }
        gate.broadcast()
        #expect(await writer.saved(1, timeout: .seconds(60)) == .saved)
        #expect(writer.waiterCount == 0)
    }
}
