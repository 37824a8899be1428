#if canImport(Glibc)
public import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The termination signals a process receives (SIGTERM and SIGINT by default), as an async
/// sequence of signal numbers, for a service that stops gracefully when systemd, Kubernetes or
/// Ctrl-C asks it to.
///
/// Iterating takes over the signals: while an iterator exists their default action (ending the
/// process at once) is replaced by a handler that delivers each arrival to every iterator.
/// When the last iterator watching a signal ends, the signal's previous action is restored, so
/// a second Ctrl-C after a graceful stop began ends the process as usual. Most services want
/// ``runUntilTerminated(signals:_:)`` instead:
///
/// ```swift
/// for await signal in TerminationSignals() {
///     log.info("stopping", ["signal": .int(Int(signal))])
///     break
/// }
/// ```
public struct TerminationSignals: AsyncSequence, Sendable {
    /// A signal number (`SIGTERM`, `SIGINT`, …).
    public typealias Element = Int32

    /// The signal numbers watched.
    public let signals: [Int32]

    /// Watches `signals` (SIGTERM and SIGINT by default) once iteration starts.
    public init(_ signals: [Int32] = [SIGTERM, SIGINT]) {
        self.signals = signals
    }

    /// Starts watching ``signals``: the iterator yields each one that arrives, until iteration
    /// ends.
    public func makeAsyncIterator() -> AsyncStream<Int32>.Iterator {
        let (stream, continuation) = AsyncStream.makeStream(of: Int32.self)
        let id = SignalRelay.shared.subscribe(signals) { continuation.yield($0) }
        continuation.onTermination = { _ in SignalRelay.shared.unsubscribe(id) }
        return stream.makeAsyncIterator()
    }
}

/// Runs `body` until it returns or one of `signals` arrives, then cancels it and waits for it
/// to finish: the whole lifecycle of a service in one call.
///
/// ```swift
/// try await runUntilTerminated {
///     try await server.run()      // returns or throws once cancelled
/// }
/// log.info("stopped")
/// ```
///
/// - Parameters:
///   - signals: The signals that stop the service (SIGTERM and SIGINT by default).
///   - body: The service; it must return (or throw) soon after its task is cancelled.
/// - Returns: The signal that stopped the service, or `nil` when `body` returned by itself.
/// - Throws: Whatever `body` throws.
@discardableResult
public func runUntilTerminated(
    signals: [Int32] = [SIGTERM, SIGINT], _ body: @escaping @Sendable () async throws -> Void
) async throws -> Int32? {
    try await withThrowingTaskGroup(of: Int32?.self) { group in
        group.addTask {
            try await body()
            return nil
        }
        group.addTask {
            for await signal in TerminationSignals(signals) { return signal }
            return nil      // cancelled: the service returned first
        }
        let first = try await group.next() ?? nil
        group.cancelAll()
        while try await group.next() != nil {}
        return first
    }
}
