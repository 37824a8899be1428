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
@Suite(.serialized) struct TerminationSignalsTests {
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
