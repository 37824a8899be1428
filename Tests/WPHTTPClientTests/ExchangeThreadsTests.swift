import Synchronization
import Testing
@testable import WPHTTPClient
import WPRuntime

/// The worker queue's thread-start policy as the client sees it: an exchange with no thread is
/// answered with a network error at once, never run on the caller's thread; the next one tries
/// again.
@Suite(.timeLimit(.minutes(3))) struct ExchangeThreadsTests {
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

@Suite(.timeLimit(.minutes(1))) struct AbortFlagTests {
    @Test func cancellingRaisesTheFlagTheTransferPolls() {
        let cancellation = ExchangeCancellation()
        #expect(!cancellation.abortFlag.isRaised)
        cancellation.cancel()
        #expect(cancellation.abortFlag.isRaised)
        cancellation.cancel()
        #expect(cancellation.abortFlag.isRaised)
    }
}
