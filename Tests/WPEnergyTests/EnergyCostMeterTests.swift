import WPTime
import Foundation
import Testing
import WPTestThreads
import WPEnergy
import WPRuntime
import WPStorage

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
        // A reload that changes the tariffs makes a new meter continuing from the sections.
        let sections = StateSections()
        let first = EnergyCostMeter(schedule: Self.schedule, startedAt: Self.at(0), sections: sections)
        first.record(["ups": 0], at: Self.at(12))
        first.record(["ups": 2 * Self.kWh], at: Self.at(13))    // 2 kWh flat at 0.5
        var dearer = Self.schedule
        dearer.flatPrice = 2
        let meter = EnergyCostMeter(schedule: dearer, startedAt: Self.at(13.5), sections: sections)
        meter.record(["ups": 3 * Self.kWh], at: Self.at(14))    // 1 kWh flat at 2
        #expect(meter.costs("ups").first { $0.period == "flat" }?.amount == 3.0, "1.0 before the change, 2.0 after")
        meter.record([:], at: Self.at(15))
        #expect(meter.all.isEmpty, "a device gone from the fleet is forgotten")
    }
}

/// The costs kept in the data directory's sections: a restart continues them, in the same
/// currency only; a damaged record is named and dropped, the others kept.
@Suite(.ownThreads, .timeLimit(.minutes(3))) struct EnergyCostKeptTests {
    typealias Costs = EnergyCostMeterTests

    static func amounts(_ meter: EnergyCostMeter, _ key: String) -> [String: Double] {
        Dictionary(uniqueKeysWithValues: meter.costs(key).map { ($0.period, $0.amount) })
    }

    @Test func aRestartContinuesTheCostsFromTheLastTotalTheyCounted() {
        let sections = StateSections()
        let first = EnergyCostMeter(schedule: Costs.schedule, startedAt: Costs.at(0), sections: sections)
        #expect(first.restoration == EnergyCostMeter.Restoration())
        first.record(["ups": 0, "other": 5 * Costs.kWh], at: Costs.at(12))
        first.record(["ups": 2 * Costs.kWh, "other": 5 * Costs.kWh], at: Costs.at(13))   // 2 kWh flat: 1.0
        #expect(sections.hasUnwrittenChanges)
        #expect(sections.records(EnergyCostMeter.startSection) == [["CNY", String(Costs.at(0).timeIntervalSince1970)]])

        // The next process: later, with the sections as the state file gave them back.
        let second = EnergyCostMeter(schedule: Costs.schedule, startedAt: Costs.at(20), sections: sections)
        #expect(second.restoration.devices == 2)
        #expect(second.restoration.unreadable.isEmpty)
        #expect(second.startedAt == Costs.at(0), "the start is the first run's")
        #expect(Self.amounts(second, "ups") == ["flat": 1.0, "peak": 0, "valley": 0], "served before any reading")
        // 3 kWh used while the exporter was down, priced at the first reading after it (valley, 0.25).
        second.record(["ups": 5 * Costs.kWh, "other": 5 * Costs.kWh], at: Costs.at(23.5))
        #expect(Self.amounts(second, "ups") == ["flat": 1.0, "peak": 0, "valley": 0.75])
        #expect(Self.amounts(second, "other") == ["flat": 0, "peak": 0, "valley": 0])
        // A device gone from the fleet leaves the section as well.
        second.record(["ups": 5 * Costs.kWh], at: Costs.at(23.6))
        #expect(sections.records(EnergyCostMeter.section).map { $0[0] } == ["ups"])
    }

    @Test func costsKeptInAnotherCurrencyStartAgain() {
        let sections = StateSections()
        let first = EnergyCostMeter(schedule: Costs.schedule, startedAt: Costs.at(0), sections: sections)
        first.record(["ups": 0], at: Costs.at(12))
        first.record(["ups": 2 * Costs.kWh], at: Costs.at(13))
        var dollars = Costs.schedule
        dollars.currency = "USD"
        let second = EnergyCostMeter(schedule: dollars, startedAt: Costs.at(20), sections: sections)
        #expect(second.restoration.discardedCurrency == "CNY")
        #expect(second.startedAt == Costs.at(20))
        #expect(second.all.isEmpty)
        #expect(sections.records(EnergyCostMeter.startSection) == [["USD", String(Costs.at(20).timeIntervalSince1970)]])
        #expect(sections.records(EnergyCostMeter.section).isEmpty)
    }

    @Test func aRunWithoutTariffsEndsTheKeptCosts() {
        let sections = StateSections()
        let first = EnergyCostMeter(schedule: Costs.schedule, startedAt: Costs.at(0), sections: sections)
        first.record(["ups": 0], at: Costs.at(12))
        first.record(["ups": 2 * Costs.kWh], at: Costs.at(13))
        #expect(EnergyCostMeter.end(in: sections))
        #expect(sections.all.isEmpty)
        #expect(!EnergyCostMeter.end(in: sections), "nothing left to end")
        // Tariffs again later: the energy used meanwhile is not priced.
        let again = EnergyCostMeter(schedule: Costs.schedule, startedAt: Costs.at(30), sections: sections)
        #expect(again.startedAt == Costs.at(30))
        again.record(["ups": 9 * Costs.kWh], at: Costs.at(31))
        #expect(Self.amounts(again, "ups") == ["flat": 0, "peak": 0, "valley": 0])
    }

    @Test func aDamagedRecordIsNamedAndDroppedTheOthersKept() {
        let sections = StateSections()
        sections.replace(EnergyCostMeter.startSection, with: [["CNY", "1767196800"]])
        sections.replace(EnergyCostMeter.section, with: [
            ["good", "3600000", "flat", "0.5"],
            ["odd", "3600000", "flat"],               // a period without its amount
            ["negative", "3600000", "flat", "-1"],
            ["nan", "nan", "flat", "1"],
            ["huge", "3600000", "flat", "1e300"],      // a checksum made to match: still not a cost
        ])
        let meter = EnergyCostMeter(schedule: Costs.schedule, startedAt: Costs.at(5), sections: sections)
        #expect(meter.restoration.devices == 1)
        #expect(meter.restoration.unreadable == [
            "energy-cost record 2: expected [key, total (J), period, amount, …], numbers from 0 to 1e18",
            "energy-cost record 3: an amount is not a number from 0 to 1e18",
            "energy-cost record 4: expected [key, total (J), period, amount, …], numbers from 0 to 1e18",
            "energy-cost record 5: an amount is not a number from 0 to 1e18",
        ])
        #expect(Self.amounts(meter, "good")["flat"] == 0.5)
        #expect(meter.startedAt == Costs.midnight)

        let broken = StateSections()
        broken.replace(EnergyCostMeter.startSection, with: [["CNY"]])
        let restarted = EnergyCostMeter(schedule: Costs.schedule, startedAt: Costs.at(5), sections: broken)
        #expect(restarted.restoration.unreadable == ["energy-cost-start record 1: expected one record [currency, Unix seconds]"])
        #expect(restarted.startedAt == Costs.at(5))
    }
}
