import WPTime
public import FoundationEssentials
import WPRuntime

/// A UPS's battery as the configuration records it, not WinPower: the day it was installed and
/// how long it is expected to last (`overrides.<id>.battery`, docs/battery.md), and from them its
/// age and the day it is due for replacement.
public struct BatteryLife: Sendable, Equatable {
    /// The installation day as days since 1970-01-01 (a calendar day, no time zone); `nil`
    /// when not configured: then neither the age nor the replace-by day is known.
    public var installedDay: Int64?
    /// The expected life in years, months and days, as configured (4 years by default).
    public var life: String

    private let span: CalendarSpan

    /// The life VRLA battery makers quote the middle of: 4 years.
    public static let defaultLife = "4y"

    /// A battery installed on `installed` (`YYYY-MM-DD`, `nil`: unknown) expected to last
    /// `life` (`4y`, `3y6mo`, `1460d`); `nil` when either does not read so.
    public init?(installed: String?, life: String = BatteryLife.defaultLife) {
        guard let span = CalendarSpan(life), !span.isZero else { return nil }
        var day: Int64?
        if let installed {
            guard let parsed = CivilDate.days(installed) else { return nil }
            day = parsed
        }
        installedDay = day
        self.life = span.description
        self.span = span
    }

    /// The installation day, `YYYY-MM-DD`.
    public var installed: String? { installedDay.map { CivilDate.text(days: $0) } }

    /// The day it is due for replacement (installed + life), `YYYY-MM-DD`.
    public var replaceBy: String? { replaceByDay.map { CivilDate.text(days: $0) } }

    /// The replace-by day as days since 1970-01-01.
    public var replaceByDay: Int64? { installedDay.map(span.added(to:)) }

    /// The start of the installation day, UTC.
    public var installedDate: Date? { installedDay.map { Date(timeIntervalSince1970: Double($0) * 86_400) } }

    /// The start of the replace-by day, UTC.
    public var replaceByDate: Date? { replaceByDay.map { Date(timeIntervalSince1970: Double($0) * 86_400) } }

    /// Its age at `date` in seconds (0 before the installation day).
    public func age(at date: Date) -> Double? {
        installedDate.map { max(0, date.timeIntervalSince($0)) }
    }
}
