/// A subscription to signals that starts when it is made, for code that must not miss a
/// signal arriving before any task iterates (``TerminationSignals`` starts watching only when
/// iteration starts).
///
/// While it exists, each arrival of one of its signals calls `deliver` with the signal number,
/// on the relay's own thread (`signal-relay`; keep it short: it must not block). The signals'
/// default action is replaced as with ``TerminationSignals``; ``cancel()``, or the end of the
/// subscription, gives a signal nobody else watches its previous action back.
///
/// ```swift
/// let reloads = SignalSubscription([SIGHUP]) { _ in continuation.yield() }
/// ```
public final class SignalSubscription: Sendable {
    private let id: Int

    /// Starts delivering `signals` to `deliver` now.
    public init(_ signals: [Int32], deliver: @escaping @Sendable (Int32) -> Void) {
        id = SignalRelay.shared.subscribe(signals, deliver: deliver)
    }

    /// Stops delivering; later calls do nothing.
    public func cancel() {
        SignalRelay.shared.unsubscribe(id)
    }

    deinit {
        cancel()
    }
}
