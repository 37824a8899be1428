/// Exponential backoff, the one rule every retry of the libraries waits by: `initial` after
/// the first failure, doubled after each further one, never more than `maximum`.
///
/// ```swift
/// let backoff = Backoff(initial: .milliseconds(500), maximum: .seconds(30))
/// backoff.delay(afterFailures: 1)   // 0.5 s
/// backoff.delay(afterFailures: 4)   // 4 s
/// ```
public struct Backoff: Sendable, Equatable {
    /// The wait after the first failure.
    public var initial: Duration
    /// The longest wait.
    public var maximum: Duration

    /// Creates a backoff that waits `initial` after the first failure and never more than
    /// `maximum`.
    public init(initial: Duration, maximum: Duration) {
        self.initial = initial
        self.maximum = maximum
    }

    /// The wait after `failures` consecutive failures (1 or more; less counts as 1): `initial`
    /// × 2^(failures − 1), capped at `maximum` (and never overflowing on the way there).
    public func delay(afterFailures failures: Int) -> Duration {
        var delay = initial
        var doublings = Swift.max(failures, 1) - 1
        while doublings > 0, delay > .zero, delay < maximum {
            delay = delay * 2
            doublings -= 1
        }
        return Swift.min(delay, maximum)
    }
}
