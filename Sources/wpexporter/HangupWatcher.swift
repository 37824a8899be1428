#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import WPScheduler

/// Turns SIGHUP into a stream of reload requests, through WPScheduler's signal relay (as
/// ``SignalWatcher``).
///
/// SIGHUP's default action (terminate) is replaced while the watcher exists, so a reload signal
/// never kills the exporter. Signals arriving while a reload is pending are coalesced into it.
/// Only `main` creates one: it changes a process-wide signal disposition.
final class HangupWatcher: Sendable {
    private let subscription: SignalSubscription
    /// One element per burst of SIGHUPs not yet consumed.
    let requests: AsyncStream<Void>

    init() {
        let (stream, continuation) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        requests = stream
        subscription = SignalSubscription([SIGHUP]) { _ in continuation.yield() }
    }
}
