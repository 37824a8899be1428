#if canImport(Glibc)
public import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A signal as a stream of requests: SIGHUP by default, one element per reload to do.
///
/// Watching starts when the value is made, and the signals' default action (SIGHUP's ends the
/// process) is replaced while it exists, so a reload signal never kills the service. Signals
/// arriving while a request is still unconsumed are coalesced into it: a burst of SIGHUPs
/// during a slow reload makes one more reload, not one per signal. ``requests`` has one
/// consumer.
///
/// ```swift
/// let hangups = SignalRequests()
/// for await _ in hangups.requests { await reload() }
/// ```
public final class SignalRequests: Sendable {
    private let subscription: SignalSubscription
    private let continuation: AsyncStream<Void>.Continuation
    /// One element per burst of signals not yet consumed; finished by ``cancel()``.
    public let requests: AsyncStream<Void>

    /// Starts watching `signals` (SIGHUP by default) now.
    public init(_ signals: [Int32] = [SIGHUP]) {
        let (stream, continuation) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        requests = stream
        self.continuation = continuation
        subscription = SignalSubscription(signals) { _ in continuation.yield() }
    }

    /// Stops watching (the signals' previous actions are back unless something else watches
    /// them) and finishes ``requests`` once its pending request is consumed.
    public func cancel() {
        subscription.cancel()
        continuation.finish()
    }
}
