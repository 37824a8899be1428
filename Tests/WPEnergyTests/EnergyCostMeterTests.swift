import Foundation
import Testing
import WPTestThreads
import WPEnergy
import WPRuntime

/// The energy cost per device and tariff period: priced from the growth of each total at the
/// tariff in force, never for energy before counting started, a new schedule only forward.
@Suite(.ownThreads, .timeLimit(.minutes(3))) struct EnergyCostMeterTests {
    /// UTC+8, flat 0.5, peak 1.0 from 08:00 to 11:00 local, valley 0.25 from 23:00 to 07:00.
    static let schedule = TariffSchedule(currency: "CNY", timeZone: .fixed(8 * 3600), flatPrice: 0.5, windows: [
        .init(period: "peak", price: 1.0, start: 480, end: 660), .init(period: "valley", price: 0.25, start: 1380, end: 420),
    ])
    /// 2026-01-01 00:00 at UTC+8.
    static let midnight = Date(timeIntervalSince1970: 1_767_196_800)
    static let kWh = 3_600_000.0

    static func at(_ hour: Double) -> Date { midnight.addingTimeInterval(hour * 3600) }

    @Test func theGrowthOfATotalIsPricedAtTheTariffInForce() {
        #expect(Self.schedule.tariff(at: Self.at(9)).period == "peak")
        #expect(Self.schedule.tariff(at: Self.at(2)).period == "valley")
        #expect(Self.schedule.tariff(at: Self.at(23.5)).period == "valley")
        #expect(Self.schedule.tariff(at: Self.at(12)).period == "flat")
        let meter = EnergyCostMeter(schedule: Self.schedule, startedAt: Self.at(0))
        meter.record(["ups": 100 * Self.kWh], at: Self.at(1))   // energy before counting: never priced
        #expect(meter.costs("ups").map(\.amount) == [0, 0, 0])
        meter.record(["ups": 102 * Self.kWh], at: Self.at(2))   // 2 kWh in the valley
        meter.record(["ups": 103 * Self.kWh], at: Self.at(9))   // 1 kWh at peak
        meter.record(["ups": 107 * Self.kWh], at: Self.at(12))  // 4 kWh flat
        let costs = Dictionary(uniqueKeysWithValues: meter.costs("ups").map { ($0.period, $0.amount) })
        #expect(costs == ["flat": 2.0, "peak": 1.0, "valley": 0.5])
        #expect(meter.costs("other").isEmpty)
        meter.record(["ups": 1 * Self.kWh], at: Self.at(13))    // a reset total: counted from there, nothing lost
        meter.record(["ups": 2 * Self.kWh], at: Self.at(14))
        #expect(meter.costs("ups").first { $0.period == "flat" }?.amount == 2.5)
    }

    @Test func aNewScheduleAppliesOnlyForward() {
        let meter = EnergyCostMeter(schedule: Self.schedule, startedAt: Self.at(0))
        meter.record(["ups": 0], at: Self.at(12))
        meter.record(["ups": 2 * Self.kWh], at: Self.at(13))    // 2 kWh flat at 0.5
        var dearer = Self.schedule
        dearer.flatPrice = 2
        meter.replace(dearer)
        meter.record(["ups": 3 * Self.kWh], at: Self.at(14))    // 1 kWh flat at 2
        #expect(meter.costs("ups").first { $0.period == "flat" }?.amount == 3.0, "1.0 before the change, 2.0 after")
        meter.retain([])
        #expect(meter.all.isEmpty, "a device gone from the fleet is forgotten")
    }
}
