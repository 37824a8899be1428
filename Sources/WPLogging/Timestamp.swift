import WPTime
import WPRuntime

/// Fast RFC 3339 formatting and parsing of wall-clock times in UTC with milliseconds.
///
/// `DateFormatter` and `ISO8601DateFormatter` cost microseconds per call and allocate; log
/// encoding formats one timestamp per record, so this does the civil-date arithmetic by hand
/// (WPRuntime's `CivilDate`). Years are clamped to 0...9999 so the output always has
/// the fixed width `YYYY-MM-DDTHH:MM:SS.mmmZ`.
enum Timestamp {
    /// Broken-down UTC time.
    struct Parts: Equatable {
        var year: Int, month: Int, day: Int, hour: Int, minute: Int, second: Int, millisecond: Int
    }

    /// Milliseconds are truncated toward the past (never rounded up into the next second).
    static func parts(of time: LogTimestamp) -> Parts {
        // ±1e13 s is ±300,000 years: far outside what we print, and far from overflowing.
        let secs = min(max(time.seconds, -10_000_000_000_000), 10_000_000_000_000)
        let millis = Int(time.nanoseconds / 1_000_000)
        let days = floorDiv(secs, 86_400)
        let secondOfDay = Int(secs - days * 86_400)

        let date = CivilDate.date(days: days)
        let (year, month, day) = (Int(min(max(date.year, 0), 9999)), Int(date.month), Int(date.day))
        return Parts(year: year, month: month, day: day, hour: secondOfDay / 3600,
                     minute: secondOfDay / 60 % 60, second: secondOfDay % 60, millisecond: millis)
    }

    /// Appends `2026-11-22T02:37:19.123Z`.
    static func appendRFC3339(_ time: LogTimestamp, to out: inout [UInt8]) {
        append(parts(of: time), timeSeparator: UInt8(ascii: ":"), zulu: true, to: &out)
    }

    /// The RFC 3339 text of `time`, e.g. `2026-11-22T02:37:19.123Z`.
    static func rfc3339(_ time: LogTimestamp) -> String {
        var out: [UInt8] = []
        appendRFC3339(time, to: &out)
        return String(decoding: out, as: UTF8.self)
    }

    /// File-name friendly form used for rotated logs: `2026-11-22T02-37-19.123` (no colons).
    static func fileStamp(_ time: LogTimestamp) -> String {
        var out: [UInt8] = []
        append(parts(of: time), timeSeparator: UInt8(ascii: "-"), zulu: false, to: &out)
        return String(decoding: out, as: UTF8.self)
    }

    /// Length of ``fileStamp(_:)`` output.
    static let fileStampLength = 23

    /// Parses the output of ``fileStamp(_:)`` back into a time; `nil` if it is not one.
    static func parseFileStamp(_ text: Substring) -> LogTimestamp? {
        let bytes = Array(text.utf8)
        guard bytes.count == fileStampLength else { return nil }
        func number(_ range: Range<Int>) -> Int? {
            var value = 0
            for index in range {
                let byte = bytes[index]
                guard byte >= 0x30, byte <= 0x39 else { return nil }
                value = value * 10 + Int(byte - 0x30)
            }
            return value
        }
        let separators: [(Int, UInt8)] = [(4, 0x2D), (7, 0x2D), (10, 0x54), (13, 0x2D), (16, 0x2D), (19, 0x2E)]
        guard separators.allSatisfy({ bytes[$0.0] == $0.1 }),
              let year = number(0..<4), let month = number(5..<7), let day = number(8..<10),
              let hour = number(11..<13), let minute = number(14..<16), let second = number(17..<19),
              let millis = number(20..<23),
              (1...12).contains(month), (1...31).contains(day), hour < 24, minute < 60, second < 61
        else { return nil }
        let days = CivilDate.days(year: Int64(year), month: Int64(month), day: Int64(day))
        let seconds = days * 86_400 + Int64(hour * 3600 + minute * 60 + second)
        return LogTimestamp(seconds: seconds, nanoseconds: Int64(millis) * 1_000_000)
    }

    private static func append(_ p: Parts, timeSeparator: UInt8, zulu: Bool, to out: inout [UInt8]) {
        appendDigits(p.year, width: 4, to: &out)
        out.append(UInt8(ascii: "-"))
        appendDigits(p.month, width: 2, to: &out)
        out.append(UInt8(ascii: "-"))
        appendDigits(p.day, width: 2, to: &out)
        out.append(UInt8(ascii: "T"))
        appendDigits(p.hour, width: 2, to: &out)
        out.append(timeSeparator)
        appendDigits(p.minute, width: 2, to: &out)
        out.append(timeSeparator)
        appendDigits(p.second, width: 2, to: &out)
        out.append(UInt8(ascii: "."))
        appendDigits(p.millisecond, width: 3, to: &out)
        if zulu { out.append(UInt8(ascii: "Z")) }
    }

    private static func appendDigits(_ value: Int, width: Int, to out: inout [UInt8]) {
        var divisor = 1
        for _ in 1..<width { divisor *= 10 }
        var rest = value
        while divisor > 0 {
            out.append(UInt8(ascii: "0") + UInt8(rest / divisor % 10))
            rest %= divisor
            divisor /= 10
        }
    }

    private static func floorDiv(_ a: Int64, _ b: Int64) -> Int64 {
        LogTimestamp.floorDiv(a, b)
    }
}
