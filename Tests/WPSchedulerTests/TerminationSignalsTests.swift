#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Testing
import WPScheduler

/// The termination helpers, driven by SIGUSR2 (raised by the test to its own process; no other
/// test uses it). SIGUSR2 is ignored before anything raises it, so a signal raised before the
/// watcher is installed is dropped rather than ending the process; the raising loops keep
/// raising until the signal is seen, so no test depends on how quickly Dispatch installs it.
@Suite(.serialized, .timeLimit(.minutes(3))) struct TerminationSignalsTests {
    init() { signal(SIGUSR2, SIG_IGN) }

    /// Raises SIGUSR2 every few milliseconds until cancelled.
    private static func raiseUntilCancelled() async {
        while !Task.isCancelled {
            kill(getpid(), SIGUSR2)   // to the process: worker threads block SIGUSR2
            try? await Task.sleep(for: .milliseconds(5))
        }
    }

    @Test func theSequenceDeliversEachSignalNumber() async {
        var signals = TerminationSignals([SIGUSR2]).makeAsyncIterator()
        let raiser = Task { await Self.raiseUntilCancelled() }
        let first = await signals.next()
        raiser.cancel()
        await raiser.value
        #expect(first == SIGUSR2)
    }

    /// A subscription watches from the moment it is made: a signal sent right after `init`,
    /// before any task runs, is delivered; after `cancel()` the signal's previous action
    /// (ignored, here) is back.
    @Test func aSubscriptionDeliversFromItsCreationAndRestoresTheActionWhenCancelled() async throws {
        let (stream, continuation) = AsyncStream.makeStream(of: Int32.self)
        let subscription = SignalSubscription([SIGUSR2]) { continuation.yield($0) }
        kill(getpid(), SIGUSR2)
        let bound = Task {   // a delivery that never comes fails the test instead of hanging it
            try await Task.sleep(for: .seconds(30))
            continuation.finish()
        }
        var arrivals = stream.makeAsyncIterator()
        #expect(await arrivals.next() == SIGUSR2)
        bound.cancel()
        subscription.cancel()
        var action = sigaction()
        #expect(sigaction(SIGUSR2, nil, &action) == 0)
        #if canImport(Darwin)
        let handler = unsafeBitCast(action.__sigaction_u.__sa_handler, to: Int.self)
        #else
        let handler = unsafeBitCast(action.__sigaction_handler.sa_handler, to: Int.self)
        #endif
        #expect(handler == unsafeBitCast(SIG_IGN, to: Int.self), "SIGUSR2 is ignored again")
        subscription.cancel()   // a second cancel does nothing
    }

    @Test func aSignalCancelsTheServiceAndIsReturned() async throws {
        let stopped = try await runUntilTerminated(signals: [SIGUSR2]) {
            await Self.raiseUntilCancelled()   // the service: runs until its task is cancelled
        }
        #expect(stopped == SIGUSR2)
    }

    @Test func aServiceThatReturnsEndsTheRunWithoutASignal() async throws {
        let stopped = try await runUntilTerminated(signals: [SIGUSR2]) {}
        #expect(stopped == nil)
    }

    @Test func whatTheServiceThrowsIsRethrown() async {
        struct Failure: Error {}
        await #expect(throws: Failure.self) {
            try await runUntilTerminated(signals: [SIGUSR2]) { throw Failure() }
        }
    }
}
