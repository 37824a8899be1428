/// The instant an exchange must be finished by, on the monotonic clock.
struct Deadline: Sendable {
    let end: ContinuousClock.Instant

    init(after timeout: Duration) {
        end = ContinuousClock.now.advanced(by: max(timeout, .zero))
    }

    /// Whether the deadline has passed.
    var hasPassed: Bool { ContinuousClock.now >= end }

    /// Milliseconds left for `poll`, rounded up so a wait never ends just before the deadline;
    /// 0 once it has passed; capped at `Int32.max`.
    var remainingMilliseconds: Int32 {
        let left = ContinuousClock.now.duration(to: end)
        guard left > .zero else { return 0 }
        let (seconds, attoseconds) = left.components
        let milliseconds = seconds.multipliedReportingOverflow(by: 1000)
        guard !milliseconds.overflow else { return Int32.max }
        let total = milliseconds.partialValue + (attoseconds + 999_999_999_999_999) / 1_000_000_000_000_000
        return Int32(clamping: total)
    }

    /// Whole milliseconds left, at least 1, for libcurl's timeout option.
    var curlMilliseconds: Int {
        max(1, Int(remainingMilliseconds))
    }
}
