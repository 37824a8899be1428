#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Testing
import WPTestThreads
import Synchronization
@testable import WPProcess

/// The signal types, driven by SIGUSR2 and SIGUSR1 (raised by the tests to their own process;
/// no other test uses them). Both are ignored before anything raises them, so a signal raised
/// before a watcher is installed is dropped rather than ending the process; the loops around
/// ``TerminationSignals`` keep raising until the signal is seen, as it starts watching only
/// when iteration starts. The other types watch from their creation, so one signal is enough.
@Suite(.ownThreads, .serialized, .timeLimit(.minutes(3))) struct SignalsTests {
    init() {
        signal(SIGUSR2, SIG_IGN)
        signal(SIGUSR1, SIG_IGN)
    }

    /// The disposition of `number` is `SIG_IGN`.
    private static func isIgnored(_ number: Int32) -> Bool {
        var action = sigaction()
        guard sigaction(number, nil, &action) == 0 else { return false }
        #if canImport(Darwin)
        let handler = unsafeBitCast(action.__sigaction_u.__sa_handler, to: Int.self)
        #else
        let handler = unsafeBitCast(action.__sigaction_handler.sa_handler, to: Int.self)
        #endif
        return handler == unsafeBitCast(SIG_IGN, to: Int.self)
    }

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
        #expect(Self.isIgnored(SIGUSR2), "SIGUSR2 is ignored again")
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

    /// Signals are read from the pipe by a thread of the relay's own, not by Dispatch.
    @Test func theRelayReadsOnAThreadOfItsOwn() {
        let subscription = SignalSubscription([SIGUSR2]) { _ in }
        defer { subscription.cancel() }
        #if os(Linux)
        let names = threadNames()
        #expect(names.contains("signal-relay"), "\(names)")
        #endif
    }

    /// The first signal ends the wait for it and is not a repeat; every later one runs the
    /// repeat handler; after `cancel()` the signal's previous action is back.
    @Test func theFirstSignalIsGracefulAndEachFurtherOneRunsTheHandler() async {
        let termination = GracefulTermination([SIGUSR2])
        let (repeats, repeated) = AsyncStream.makeStream(of: Int32.self)
        termination.onRepeat { repeated.yield($0) }
        kill(getpid(), SIGUSR2)
        #expect(await termination.first() == SIGUSR2)
        #expect(await termination.first() == SIGUSR2, "a later wait returns at once")
        var arrivals = repeats.makeAsyncIterator()
        kill(getpid(), SIGUSR2)
        #expect(await arrivals.next() == SIGUSR2)
        kill(getpid(), SIGUSR2)
        #expect(await arrivals.next() == SIGUSR2)
        termination.cancel()
        #expect(Self.isIgnored(SIGUSR2))
    }

    @Test func waitingForTheFirstSignalEndsWhenTheTaskIsCancelled() async {
        let termination = GracefulTermination([SIGUSR2])
        defer { termination.cancel() }
        let waiter = Task { await termination.first() }
        waiter.cancel()
        #expect(await waiter.value == nil)
    }

    /// Signals that arrive while a request is unconsumed make one request: three SIGUSR2s, then
    /// a SIGUSR1 whose arrival proves the relay handed all three on (it reads the pipe in
    /// order on one thread), leave exactly one request; `cancel()` ends the stream.
    @Test func signalsArrivingWhileARequestIsPendingAreCoalesced() async {
        let requests = SignalRequests([SIGUSR2])
        let (seen, see) = AsyncStream.makeStream(of: Int32.self)
        let counter = SignalSubscription([SIGUSR2, SIGUSR1]) { see.yield($0) }
        var arrivals = seen.makeAsyncIterator()
        for _ in 0..<3 {
            kill(getpid(), SIGUSR2)
            #expect(await arrivals.next() == SIGUSR2)
        }
        kill(getpid(), SIGUSR1)
        #expect(await arrivals.next() == SIGUSR1)
        counter.cancel()
        requests.cancel()
        var pending = requests.requests.makeAsyncIterator()
        #expect(await pending.next() != nil, "one request for the three signals")
        #expect(await pending.next() == nil, "no second request; the stream ended")
        #expect(Self.isIgnored(SIGUSR2) && Self.isIgnored(SIGUSR1))
    }

    @Test func theSecondSignalRunsTheRepeatHandlerNotTheFirst() async {
        let events = SignalEvents()
        let repeats = Mutex("")
        events.onRepeat { number in repeats.withLock { $0 += "\(number)" } }
        events.received(15)
        #expect(await events.first() == 15)
        #expect(repeats.withLock { $0 }.isEmpty)
        events.received(2)
        #expect(repeats.withLock { $0 } == "2")
    }

    @Test func twoCoalescedSignalsCountAsASecondSignal() async {
        let events = SignalEvents()
        let repeats = Mutex("")
        events.onRepeat { number in repeats.withLock { $0 += "\(number)" } }
        events.received(15, times: 2)
        await events.first()
        #expect(repeats.withLock { $0 } == "15")
    }
}

#if os(Linux)
/// The names of the process's threads (`/proc/self/task/*/comm`).
private func threadNames() -> [String] {
    guard let directory = opendir("/proc/self/task") else { return [] }
    defer { closedir(directory) }
    var names: [String] = []
    while let entry = readdir(directory) {
        let id = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix(while: { $0 != 0 }), as: UTF8.self) }
        guard id.first?.isNumber == true else { continue }
        let fd = open("/proc/self/task/\(id)/comm", O_RDONLY)
        guard fd >= 0 else { continue }
        var bytes = [UInt8](repeating: 0, count: 32)
        let count = bytes.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
        close(fd)
        if count > 0 { names.append(String(decoding: bytes[0..<count], as: UTF8.self).trimmingSuffix("\n")) }
    }
    return names
}

private extension String {
    func trimmingSuffix(_ suffix: String) -> String { hasSuffix(suffix) ? String(dropLast(suffix.count)) : self }
}
#endif
