#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
package import WPTime
import WPRuntime

/// A wall-clock instant: whole seconds and nanoseconds since 1970-01-01T00:00:00Z.
///
/// WPLogging stamps records with this type rather than Foundation's `Date`, so that a binary
/// linking only WPLogging (and, say, WPServer) never loads a Foundation library. The value is
/// always normalised: ``nanoseconds`` is in `0..<1_000_000_000` and ``seconds`` carries the
/// sign, so `-0.25 s` is `seconds == -1, nanoseconds == 750_000_000`. Arithmetic saturates at
/// the ends of the `Int64` range instead of trapping.
///
/// ```swift
/// let now = LogTimestamp.now()
/// let fixed = LogTimestamp(seconds: 1_795_315_039, nanoseconds: 123_000_000)
/// print(fixed)                     // 2026-11-22T02:37:19.123Z
/// let later = fixed.advanced(bySeconds: 86_400)
/// later.seconds(since: fixed)      // 86400.0
/// ```
public struct LogTimestamp: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// Whole seconds since the Unix epoch, rounded toward the past.
    public let seconds: Int64
    /// Nanoseconds past ``seconds``, in `0..<1_000_000_000`.
    public let nanoseconds: Int32

    private static let nanosPerSecond: Int64 = 1_000_000_000

    /// The Unix epoch, 1970-01-01T00:00:00Z.
    public static let epoch = LogTimestamp(seconds: 0)

    /// Creates a timestamp, normalising nanoseconds outside `0..<1_000_000_000` into seconds.
    ///
    /// - Parameters:
    ///   - seconds: Seconds since the Unix epoch.
    ///   - nanoseconds: Nanoseconds to add; may be negative or exceed one second.
    public init(seconds: Int64, nanoseconds: Int64 = 0) {
        var carry = nanoseconds / Self.nanosPerSecond
        var rest = nanoseconds % Self.nanosPerSecond
        if rest < 0 {
            rest += Self.nanosPerSecond
            carry -= 1
        }
        let (sum, overflow) = seconds.addingReportingOverflow(carry)
        self.seconds = overflow ? (carry < 0 ? .min : .max) : sum
        self.nanoseconds = Int32(rest)
    }

    /// Creates a timestamp from fractional seconds since the Unix epoch, rounded to the
    /// nearest microsecond (so `0.123` means exactly 123 ms, not 122.999… ms).
    ///
    /// A non-finite value gives the epoch; values are clamped to ±10¹³ s (±300,000 years).
    ///
    /// - Parameter secondsSince1970: Seconds since 1970-01-01T00:00:00Z.
    public init(secondsSince1970: Double) {
        guard secondsSince1970.isFinite else {
            self.init(seconds: 0)
            return
        }
        let clamped = min(max(secondsSince1970, -1e13), 1e13)
        let whole = clamped.rounded(.down)
        let micros = Int64(((clamped - whole) * 1_000_000).rounded())
        self.init(seconds: Int64(whole), nanoseconds: micros * 1000)
    }

    /// The system wall clock (`clock_gettime(CLOCK_REALTIME)`).
    ///
    /// - Returns: The current time; the epoch in the (not expected) case the call fails.
    public static func now() -> LogTimestamp {
        var spec = timespec()
        guard clock_gettime(CLOCK_REALTIME, &spec) == 0 else { return .epoch }
        return LogTimestamp(seconds: Int64(spec.tv_sec), nanoseconds: Int64(spec.tv_nsec))
    }

    /// Seconds since the Unix epoch as a `Double` (sub-microsecond precision is lost for
    /// present-day times).
    public var secondsSince1970: Double {
        Double(seconds) + Double(nanoseconds) / 1e9
    }

    /// This instant moved by `delta` seconds (negative moves it back).
    ///
    /// - Parameter delta: Seconds to add; non-finite values leave the time unchanged, and
    ///   values beyond ±10¹³ s are clamped.
    /// - Returns: The moved timestamp, rounded to the nearest nanosecond.
    public func advanced(bySeconds delta: Double) -> LogTimestamp {
        guard delta.isFinite else { return self }
        let clamped = min(max(delta, -1e13), 1e13)
        let whole = clamped.rounded(.down)
        let fraction = Int64(((clamped - whole) * 1e9).rounded())
        let (sum, overflow) = seconds.addingReportingOverflow(Int64(whole))
        let base = overflow ? (whole < 0 ? Int64.min : Int64.max) : sum
        return LogTimestamp(seconds: base, nanoseconds: Int64(nanoseconds) + fraction)
    }

    /// The seconds elapsed from `other` to this instant (negative when `other` is later).
    ///
    /// - Parameter other: The earlier instant.
    /// - Returns: `self - other` in seconds.
    public func seconds(since other: LogTimestamp) -> Double {
        let (difference, overflow) = seconds.subtractingReportingOverflow(other.seconds)
        let whole = overflow ? Double(seconds) - Double(other.seconds) : Double(difference)
        return whole + Double(Int64(nanoseconds) - Int64(other.nanoseconds)) / 1e9
    }

    /// RFC 3339 in UTC with milliseconds, e.g. `2026-11-22T02:37:19.123Z`.
    public var description: String { Timestamp.rfc3339(self) }

    /// Whether `lhs` is earlier than `rhs`, by seconds, then nanoseconds.
    public static func < (lhs: LogTimestamp, rhs: LogTimestamp) -> Bool {
        (lhs.seconds, lhs.nanoseconds) < (rhs.seconds, rhs.nanoseconds)
    }

    static func floorDiv(_ a: Int64, _ b: Int64) -> Int64 {
        let q = a / b
        return (a % b != 0 && (a < 0) != (b < 0)) ? q - 1 : q
    }
}

extension LogTimestamp {
    /// Unix `seconds` as the wall clock in `zone` reads them, in the shape of a UTC instant
    /// (its description `2026-11-26T15:30:00.000Z`, the `Z` meaning nothing).
    package static func local(_ seconds: Int64, _ zone: TimeZoneRules) -> LogTimestamp {
        LogTimestamp(secondsSince1970: Double(seconds + Int64(zone.offset(at: seconds))))
    }

    /// `2026-11-26 15:30:00 UTC+08:00` (`… UTC` in UTC): Unix `seconds` as the local time in
    /// `zone`, with its offset: how the status pages and the notifications show a time.
    package static func localText(_ seconds: Int64, _ zone: TimeZoneRules) -> String {
        local(seconds, zone).text(.second) + " " + zone.label(at: seconds)
    }

    /// How much of a time ``text(_:)`` shows.
    package enum Shown: Sendable {
        /// `2026-11`
        case month
        /// `2026-11-26`
        case day
        /// `2026-11-26 15:30`
        case minute
        /// `2026-11-26 15:30:00`
        case second
        /// `2026-11-26T15:30:00Z`: RFC 3339 to the second (the description without milliseconds).
        case rfc3339Seconds
        /// `11-26`: a chart's day tick.
        case monthDay
        /// `15:30`: a chart's hour tick.
        case hourMinute
    }

    /// This time as text, to the part `shown`: the one place a time is cut to a day, a minute or
    /// a second for the pages, the history's answers and the notifications.
    package func text(_ shown: Shown) -> String {
        let iso = description  // 2026-11-26T15:30:00.000Z
        return switch shown {
        case .month: String(iso.prefix(7))
        case .day: String(iso.prefix(10))
        case .minute: String(iso.prefix(10)) + " " + String(iso.dropFirst(11).prefix(5))
        case .second: String(iso.prefix(10)) + " " + String(iso.dropFirst(11).prefix(8))
        case .rfc3339Seconds: String(iso.prefix(19)) + "Z"
        case .monthDay: String(iso.dropFirst(5).prefix(5))
        case .hourMinute: String(iso.dropFirst(11).prefix(5))
        }
    }
}
