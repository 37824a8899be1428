import FoundationEssentials
import WPRuntime

/// A login token and when to stop using it.
///
/// Every instant is elapsed time on the client's monotonic clock, counted from the moment the
/// token was received; the lifetime comes from the token's own claims
/// (``TokenClaims/lifetime(fallback:)``), never from comparing a claim with our wall clock.
struct SessionToken: Sendable, Equatable {
    /// The bearer token. Never logged.
    var value: String
    /// Elapsed time on the client's clock at which the token expires.
    var expiresAt: Duration
    /// Elapsed time at which to renew it (before expiry).
    var renewAt: Duration
    /// The expiry as a wall-clock instant (our clock), for the `token expiry` metric.
    var wallExpiry: Date
    /// Which claims gave the lifetime.
    var source: TokenClaims.Source

    /// A token received at `now` (`wallNow` on our wall clock) living `lifetime`, renewed
    /// `refreshThreshold` before expiry but at most half the lifetime before it.
    init(value: String, receivedAt now: Duration, wallNow: Date, lifetime: Duration,
         refreshThreshold: Duration, source: TokenClaims.Source) {
        let margin = Swift.min(Swift.max(refreshThreshold, .zero), lifetime / 2)
        self.value = value
        self.expiresAt = now + lifetime
        self.renewAt = now + lifetime - margin
        self.wallExpiry = wallNow.addingTimeInterval(lifetime.inSeconds)
        self.source = source
    }
}
