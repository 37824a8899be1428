import Testing
import WPTestThreads
import WPTime
@testable import WPStatusPage

/// The charts' time axis: ticks on local hours, days or months, labelled in the pages' zone.
@Suite(.ownThreads, .timeLimit(.minutes(2))) struct StatusChartTicksTests {
    static let beijing = TimeZoneRules.fixed(8 * 3_600)

    @Test func aDayIsTickedEveryFourLocalHours() {
        // 2026-11-25T16:00:00Z (1_795_622_400) is 2026-11-26 00:00 in UTC+8.
        let from: Int64 = 1_795_622_400
        let ticks = StatusChart.ticks(.init(from: from, to: from + 86_400, step: 300, zone: Self.beijing))
        #expect(ticks.map(\.1) == ["00:00", "04:00", "08:00", "12:00", "16:00", "20:00"])
        #expect(ticks.first?.0 == from)
    }

    @Test func aMonthIsTickedByLocalDays() {
        let from: Int64 = 1_795_622_400  // 2026-11-26 00:00 local
        let ticks = StatusChart.ticks(.init(from: from, to: from + 30 * 86_400, step: 3_600, zone: Self.beijing))
        // Every 5 local days (counted from the epoch's local midnight): 11-28, 12-03, …
        #expect(Array(ticks.map(\.1).prefix(3)) == ["11-28", "12-03", "12-08"])
        #expect(ticks.allSatisfy { ($0.0 + 8 * 3_600) % 86_400 == 0 }, "each at a local midnight")
    }

    @Test func monthsAreTickedAtLocalMonthStarts() {
        // From 2026-11-26 local, 150 days: every month, the first at local midnight of 2026-12-01
        // (2026-11-30T16:00:00Z).
        let from: Int64 = 1_795_622_400
        let ticks = StatusChart.ticks(.init(from: from, to: from + 150 * 86_400, step: 86_400, zone: Self.beijing))
        #expect(Array(ticks.map(\.1).prefix(3)) == ["2026-12", "2027-01", "2027-02"])
        #expect(ticks.first?.0 == 1_796_054_400)
        // A year: every other month, the odd ones.
        let year = StatusChart.ticks(.init(from: from, to: from + 365 * 86_400, step: 86_400, zone: Self.beijing))
        #expect(Array(year.map(\.1).prefix(3)) == ["2027-01", "2027-03", "2027-05"])
    }
}
