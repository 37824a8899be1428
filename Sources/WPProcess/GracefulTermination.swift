#if canImport(Glibc)
public import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The termination policy of a long-running process: the first SIGTERM or SIGINT stops it
/// gracefully, every further one runs a handler (a service persists what it must and exits at
/// once, so an operator who presses Ctrl-C twice is never kept waiting).
///
/// Watching starts when the value is made, so a signal that arrives while the service is
/// still starting is not lost. The signals' default action is replaced while it exists (as
/// with ``SignalSubscription``); ``cancel()`` gives them back. Make one near the top of the
/// process: it changes process-wide signal dispositions.
///
/// ```swift
/// let termination = GracefulTermination()
/// termination.onRepeat { _ in
///     store.persist(timeout: .milliseconds(500))
///     StandardStreams.exit(1, flushingWithin: .milliseconds(500))
/// }
/// await termination.first()      // then stop gracefully
/// ```
public final class GracefulTermination: Sendable {
    private let events = SignalEvents()
    private let subscription: SignalSubscription

    /// Starts watching `signals` (SIGTERM and SIGINT by default) now.
    public init(_ signals: [Int32] = [SIGTERM, SIGINT]) {
        let events = self.events
        subscription = SignalSubscription(signals) { events.received($0) }
    }

    /// Sets what happens on the second and later signals: `handler` runs with the signal's
    /// number on the relay's thread, once per signal. With no handler they are ignored.
    public func onRepeat(_ handler: @escaping @Sendable (Int32) -> Void) { events.onRepeat(handler) }

    /// Returns the first signal's number when it arrived (at once if it already did), or `nil`
    /// when the task is cancelled first.
    @discardableResult
    public func first() async -> Int32? { await events.first() }

    /// Stops watching: the signals' previous actions are back (unless something else watches
    /// them) and later signals reach neither ``first()`` nor the repeat handler.
    public func cancel() { subscription.cancel() }
}
