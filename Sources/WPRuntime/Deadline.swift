#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// An instant on the monotonic clock by which something must be done: the one place the
/// libraries turn a timeout into what `poll`, `epoll_wait`, a condition variable or libcurl
/// take.
public struct Deadline: Sendable, Hashable, Comparable {
    /// The instant itself.
    public let end: ContinuousClock.Instant

    /// `timeout` from now (a negative timeout is now).
    public init(after timeout: Duration) {
        end = ContinuousClock.now.advanced(by: max(timeout, .zero))
    }

    /// The deadline at `end`.
    public init(at end: ContinuousClock.Instant) {
        self.end = end
    }

    /// Whether `lhs` comes before `rhs`: the earlier deadline orders first.
    public static func < (lhs: Deadline, rhs: Deadline) -> Bool { lhs.end < rhs.end }

    /// Whether the deadline has passed.
    public var hasPassed: Bool { ContinuousClock.now >= end }

    /// The time left, zero once passed.
    public var remaining: Duration { max(.zero, ContinuousClock.now.duration(to: end)) }

    /// Milliseconds left for `poll` or `epoll_wait`, rounded up so a wait never ends just
    /// before the deadline; 0 once it has passed; capped at `Int32.max`.
    public var remainingMilliseconds: Int32 {
        Self.milliseconds(remaining)
    }

    /// `duration` in whole milliseconds for `poll` or `epoll_wait`, rounded up, 0 for a
    /// duration not above zero, capped at `Int32.max`.
    public static func milliseconds(_ duration: Duration) -> Int32 {
        guard duration > .zero else { return 0 }
        let (seconds, attoseconds) = duration.components
        let milliseconds = seconds.multipliedReportingOverflow(by: 1000)
        guard !milliseconds.overflow else { return Int32.max }
        let total = milliseconds.partialValue.addingReportingOverflow((attoseconds + 999_999_999_999_999) / 1_000_000_000_000_000)
        return total.overflow ? Int32.max : Int32(clamping: total.partialValue)
    }

    /// The deadline as an absolute time on the clock ``WPConditionLock`` waits with
    /// (`CLOCK_MONOTONIC` on Linux, the wall clock on Darwin), for `pthread_cond_timedwait`.
    /// Far deadlines are capped at about 68 years from now.
    var conditionTime: timespec {
        let left = min(remaining, .seconds(Int64(Int32.max)))
        let (seconds, attoseconds) = left.components
        var now = timespec()
        #if canImport(Darwin)
        clock_gettime(CLOCK_REALTIME, &now)
        #else
        clock_gettime(CLOCK_MONOTONIC, &now)
        #endif
        let nanoseconds = Int(now.tv_nsec) + Int(attoseconds / 1_000_000_000)
        return timespec(tv_sec: now.tv_sec + time_t(seconds) + time_t(nanoseconds / 1_000_000_000),
                        tv_nsec: nanoseconds % 1_000_000_000)
    }
}
