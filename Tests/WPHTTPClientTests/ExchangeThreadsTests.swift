import Synchronization
import Testing
import WPTestThreads
@testable import WPHTTPClient
import WPRuntime

/// The worker queue's thread-start policy as the client sees it: an exchange with no thread is
/// answered with a network error at once, never run on the caller's thread; the next one tries
/// again.
@Suite(.ownThreads, .timeLimit(.minutes(3))) struct ExchangeThreadsTests {
    @Test func anExchangeWithNoThreadIsRefusedWithANetworkErrorAndTheNextTriesAgain() async {
        let failing = Atomic(true)
        let threads = ExchangeThreads(maxThreads: 2, idleTime: .zero, starter: { name, body throws(ThreadStartError) in
            if failing.load(ordering: .relaxed) { throw ThreadStartError(name: name, code: 11) }
            try NamedThread.start(name: name, body)
        })
        func exchange() async -> HTTPClientError? {
            await withCheckedContinuation { (continuation: CheckedContinuation<HTTPClientError?, Never>) in
                threads.submit(ExchangeThreads.Job(cancellation: ExchangeCancellation(), run: { done in
                    done()
                    continuation.resume(returning: nil)
                }, refuse: { error in continuation.resume(returning: error) }))
            }
        }
        let refused = await exchange()
        #expect(refused?.kind == .network)
        #expect(threads.threadCount == 0)
        failing.store(false, ordering: .relaxed)
        #expect(await exchange() == nil)
    }
}

/// Clients sharing one ``HTTPClient/ThreadPool``: the threads follow the exchanges in flight,
/// bounded by the pool, and each client uses at most its share of them.
@Suite(.ownThreads, .timeLimit(.minutes(3))) struct SharedThreadPoolTests {
    /// Jobs that block their pool thread until the test lets them go; the test only awaits.
    final class Held: Sendable {
        private let state = WPConditionLock<(running: Int, peak: Int, released: Bool)>((0, 0, false))
        private let started = AsyncStream<Void>.makeStream()

        /// A job that counts itself running, blocks until ``release()``, then reports `finished`.
        func job(finished: @escaping @Sendable (HTTPClientError?) -> Void) -> ExchangeThreads.Job {
            ExchangeThreads.Job(cancellation: ExchangeCancellation(), run: { [self] done in
                state.withLock { state in
                    state.running += 1
                    state.peak = max(state.peak, state.running)
                }
                started.continuation.yield()
                state.wait(until: nil, for: { $0.released }) { state, _ in state.running -= 1 }
                done()
                finished(nil)
            }, refuse: { error in finished(error) })
        }

        /// Waits until `count` more jobs have started.
        func waitForStarts(_ count: Int) async {
            var iterator = started.stream.makeAsyncIterator()
            for _ in 0..<count { _ = await iterator.next() }
        }

        func release() {
            state.withLock { $0.released = true }
            state.broadcast()
        }

        var peak: Int { state.withLock { $0.peak } }
        var running: Int { state.withLock { $0.running } }
    }

    /// Collects outcomes; `wait(for:)` returns once that many arrived.
    final class Outcomes: Sendable {
        private let stream = AsyncStream<HTTPClientError?>.makeStream()
        func record(_ outcome: HTTPClientError?) { stream.continuation.yield(outcome) }
        func wait(for count: Int) async -> [HTTPClientError?] {
            var result: [HTTPClientError?] = []
            for await outcome in stream.stream {
                result.append(outcome)
                if result.count == count { break }
            }
            return result
        }
    }

    @Test func fiftyClientsRunOnThePoolsThreadsOnly() async {
        let pool = HTTPClient.ThreadPool(maxThreads: 4, idleTime: .seconds(30))
        let held = Held()
        let outcomes = Outcomes()
        let clients = (0..<50).map { _ in ExchangeThreads(pool: pool, maxThreads: 2) }
        for client in clients { client.submit(held.job(finished: outcomes.record)) }
        await held.waitForStarts(4)
        #expect(pool.threadCount == 4, "one thread per job in flight, up to the pool's size")
        #expect(held.running == 4)
        held.release()
        let results = await outcomes.wait(for: 50)
        #expect(results.allSatisfy { $0 == nil }, "every exchange ran")
        #expect(held.peak <= 4)
        #expect(pool.threadCount <= 4)
    }

    @Test func aClientUsesAtMostItsShareAndOthersPassIt() async {
        let pool = HTTPClient.ThreadPool(maxThreads: 4, idleTime: .seconds(30))
        let hung = Held()
        let hungOutcomes = Outcomes()
        let slow = ExchangeThreads(pool: pool, maxThreads: 2)
        for _ in 0..<5 { slow.submit(hung.job(finished: hungOutcomes.record)) }
        await hung.waitForStarts(2)
        #expect(slow.waitingCount == 3, "the client's other exchanges wait for its share, not for the pool")
        // Another client gets a thread at once although the first has exchanges waiting.
        let other = ExchangeThreads(pool: pool, maxThreads: 2)
        let quick = Outcomes()
        other.submit(ExchangeThreads.Job(cancellation: ExchangeCancellation(), run: { done in
            done()
            quick.record(nil)
        }, refuse: { quick.record($0) }))
        #expect(await quick.wait(for: 1) == [nil])
        #expect(hung.running == 2, "still two of the first client's, none more")
        hung.release()
        #expect(await hungOutcomes.wait(for: 5).allSatisfy { $0 == nil })
        #expect(hung.peak == 2)
        #expect(slow.waitingCount == 0)
    }

    @Test func aJobWaitingForItsShareIsWithdrawnAtOnce() async {
        let pool = HTTPClient.ThreadPool(maxThreads: 4, idleTime: .seconds(30))
        let held = Held()
        let outcomes = Outcomes()
        let client = ExchangeThreads(pool: pool, maxThreads: 1)
        client.submit(held.job(finished: outcomes.record))
        await held.waitForStarts(1)
        let waiting = ExchangeCancellation()
        let withdrawn = Outcomes()
        #expect(client.submit(ExchangeThreads.Job(cancellation: waiting, run: { done in
            done()
            withdrawn.record(nil)
        }, refuse: { withdrawn.record($0) })), "it has to wait")
        client.withdraw(waiting, with: HTTPClientError(.timeout, "gave up"))
        #expect(await withdrawn.wait(for: 1).map { $0?.kind } == [.timeout])
        #expect(client.waitingCount == 0)
        held.release()
        #expect(await outcomes.wait(for: 1) == [nil])
    }
}

@Suite(.ownThreads, .timeLimit(.minutes(2))) struct AbortFlagTests {
    @Test func cancellingRaisesTheFlagTheTransferPolls() {
        let cancellation = ExchangeCancellation()
        #expect(!cancellation.abortFlag.isRaised)
        cancellation.cancel()
        #expect(cancellation.abortFlag.isRaised)
        cancellation.cancel()
        #expect(cancellation.abortFlag.isRaised)
    }
}
