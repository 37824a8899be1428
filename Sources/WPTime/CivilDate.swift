/// Dates of the proleptic Gregorian calendar as days since 1970-01-01, by Howard Hinnant's
/// `days_from_civil` and `civil_from_days`: the arithmetic the log timestamps and the time zone
/// rules share, with no allocation and no calendar object.
package enum CivilDate {
    /// Days since 1970-01-01 of `year`-`month`-`day` (negative before it).
    package static func days(year: Int64, month: Int64, day: Int64) -> Int64 {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let doy = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
    }

    /// The day (since 1970-01-01) that Unix `seconds` fall in, floored: -1 is 1969-12-31.
    package static func days(containing seconds: Int64) -> Int64 {
        seconds >= 0 ? seconds / 86_400 : (seconds - 86_399) / 86_400
    }

    /// The date `days` after 1970-01-01 (before it when negative).
    package static func date(days: Int64) -> (year: Int64, month: Int64, day: Int64) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let day = doy - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        return (yoe + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }
}

extension CivilDate {
    /// The days of `month` of `year` (28 to 31).
    package static func length(year: Int64, month: Int64) -> Int64 {
        days(year: month == 12 ? year + 1 : year, month: month == 12 ? 1 : month + 1, day: 1) - days(year: year, month: month, day: 1)
    }

    /// The day `text` names as `YYYY-MM-DD` (years 1900–2999), in days since 1970-01-01, or nil
    /// when it is not such a day (`2025-02-29`, `2025-2-1`, `01/03/2024`).
    package static func days(_ text: String) -> Int64? {
        let parts = text.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 3, parts[0].count == 4, parts[1].count == 2, parts[2].count == 2,
              parts.allSatisfy({ $0.allSatisfy { $0.isASCII && $0.isNumber } }),
              let year = Int64(parts[0]), let month = Int64(parts[1]), let day = Int64(parts[2]),
              (1900...2999).contains(year), (1...12).contains(month), day >= 1, day <= length(year: year, month: month)
        else { return nil }
        return days(year: year, month: month, day: day)
    }

    /// `days` as `YYYY-MM-DD`.
    package static func text(days: Int64) -> String {
        let (year, month, day) = date(days: days)
        func two(_ value: Int64) -> String { value < 10 ? "0\(value)" : "\(value)" }
        return "\(year)-\(two(month))-\(two(day))"
    }
}

/// A span of the calendar in years, months and days (`4y`, `3y6mo`, `1460d`): what a battery's
/// life is given in. Added to a day, years and months move the calendar (the day of the month
/// kept, or the month's last day when it has fewer: 2024-02-29 + 1y is 2025-02-28), then days
/// are added.
package struct CalendarSpan: Sendable, Equatable, CustomStringConvertible {
    package var years: Int64
    package var months: Int64
    package var days: Int64

    package init(years: Int64 = 0, months: Int64 = 0, days: Int64 = 0) {
        self.years = years
        self.months = months
        self.days = days
    }

    /// `text` as one or more `<whole number><unit>` parts, units `y`, `mo` and `d` in that
    /// order, each at most once (`4y`, `3y6mo`, `18mo`, `2y30d`); nil otherwise. At most 100
    /// years in all.
    package init?(_ text: String) {
        var rest = Substring(text)
        var seen: [String] = []
        self.init()
        while !rest.isEmpty {
            let number = rest.prefix { $0.isASCII && $0.isNumber }
            rest = rest.dropFirst(number.count)
            let unit = rest.prefix { !($0.isASCII && $0.isNumber) }
            rest = rest.dropFirst(unit.count)
            let order = ["y", "mo", "d"]
            guard !number.isEmpty, number.count <= 6, let value = Int64(number), let index = order.firstIndex(of: String(unit)),
                  seen.allSatisfy({ order.firstIndex(of: $0)! < index }) else { return nil }
            seen.append(String(unit))
            switch unit {
            case "y": years = value
            case "mo": months = value
            default: days = value
            }
        }
        guard !seen.isEmpty, years * 372 + months * 31 + days <= 100 * 372 else { return nil }
    }

    /// As it is written: `4y`, `3y6mo`, `0d` for none.
    package var description: String {
        let parts = [(years, "y"), (months, "mo"), (days, "d")].filter { $0.0 != 0 }.map { "\($0.0)\($0.1)" }
        return parts.isEmpty ? "0d" : parts.joined()
    }

    /// Whether it spans no day at all.
    package var isZero: Bool { years == 0 && months == 0 && days == 0 }

    /// The day this span after `start` (days since 1970-01-01).
    package func added(to start: Int64) -> Int64 {
        let (year, month, day) = CivilDate.date(days: start)
        let monthIndex = (month - 1) + months + 12 * years
        let newYear = year + (monthIndex >= 0 ? monthIndex / 12 : (monthIndex - 11) / 12)
        let newMonth = monthIndex - (newYear - year) * 12 + 1
        let newDay = min(day, CivilDate.length(year: newYear, month: newMonth))
        return CivilDate.days(year: newYear, month: newMonth, day: newDay) + days
    }
}
