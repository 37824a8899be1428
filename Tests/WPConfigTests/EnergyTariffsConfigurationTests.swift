import WPTime
import Testing
import WPRuntime
import WPTestThreads
@testable import WPConfig

/// `energy.tariffs.*`: a flat price or peak and valley hours at a fixed offset from UTC, with a
/// currency; each mistake refused naming its key.
@Suite(.ownThreads, .timeLimit(.minutes(3))) struct EnergyTariffsConfigurationTests {
    typealias Tariffs = ExporterConfiguration.Energy.Tariffs

    @Test func timeOfUseTariffsAreReadNestedFromTheFile() throws {
        let loaded = try ConfigurationLoader.load(TestInputs.make(file: """
            energy:
              tariffs:
                currency: CNY
                time_zone: UTC+08:00
                flat_price: "0.62"
                peak_price: 1.05
                peak_hours: 08:00-11:00,18:00-21:00
                valley_price: 0.31
                valley_hours: 23:00-07:00
            """))
        let tariffs = loaded.configuration.energy.tariffs
        #expect(tariffs.isEnabled && tariffs.currency == "CNY" && tariffs.timeZone == "UTC+08:00")
        #expect(tariffs.flatPrice == 0.62 && tariffs.peakPrice == 1.05 && tariffs.valleyPrice == 0.31)
        #expect(tariffs.peakHours == [Tariffs.Hours(start: 480, end: 660), Tariffs.Hours(start: 1080, end: 1260)])
        #expect(tariffs.valleyHours == [Tariffs.Hours(start: 1380, end: 420)])
        #expect(tariffs.tariff(minuteOfDay: 9 * 60)?.period == "peak")
        #expect(tariffs.tariff(minuteOfDay: 2 * 60)?.period == "valley", "past midnight")
        #expect(tariffs.tariff(minuteOfDay: 12 * 60)?.period == "flat")
        #expect(tariffs.tariff(minuteOfDay: 11 * 60)?.period == "flat", "the end is not in the period")
        #expect(!(try ConfigurationLoader.load(TestInputs.make()).configuration.energy.tariffs.isEnabled), "off by default")
    }

    @Test(arguments: [
        ("energy:\n  tariffs:\n    flat_price: 0.5\n", "energy.tariffs.currency"),
        ("energy:\n  tariffs:\n    currency: CNY\n", "energy.tariffs.flat_price"),
        ("energy:\n  tariffs:\n    currency: CNY\n    flat_price: 0,5\n", "energy.tariffs.flat_price"),
        ("energy:\n  tariffs:\n    currency: CNY\n    flat_price: -1\n", "energy.tariffs.flat_price"),
        ("energy:\n  tariffs:\n    currency: CNY\n    flat_price: 0.5\n    time_zone: Mars/Olympus_Mons\n", "energy.tariffs.time_zone"),
        ("energy:\n  tariffs:\n    currency: CNY\n    flat_price: 0.5\n    time_zone: ../../etc/passwd\n", "energy.tariffs.time_zone"),
        ("energy:\n  tariffs:\n    currency: CNY\n    flat_price: 0.5\n    peak_price: 1\n", "energy.tariffs.peak_hours"),
        ("energy:\n  tariffs:\n    currency: CNY\n    flat_price: 0.5\n    valley_hours: 23:00-07:00\n", "energy.tariffs.valley_price"),
        ("energy:\n  tariffs:\n    currency: CNY\n    flat_price: 0.5\n    peak_price: 1\n    peak_hours: 8-11\n", "energy.tariffs.peak_hours"),
        ("energy:\n  tariffs:\n    currency: CNY\n    flat_price: 0.5\n    peak_price: 1\n    peak_hours: 18:00-23:30\n"
            + "    valley_price: 0.2\n    valley_hours: 23:00-07:00\n", "energy.tariffs.valley_hours"),
        ("energy:\n  tariffs:\n    currency: \"<b>\"\n    flat_price: 0.5\n", "energy.tariffs.currency"),
    ])
    func aMistakeIsRefusedNamingItsKey(file: String, key: String) {
        let problems = TestInputs.problems(TestInputs.make(file: file))
        #expect(problems.count == 1, "\(problems)")
        #expect(problems.first?.contains(key + ":") == true, "\(problems)")
    }

    @Test func pricesHoursAndOffsetsParseStrictly() {
        #expect(Tariffs.price("0.615") == 0.615 && Tariffs.price(" 2 ") == 2 && Tariffs.price("0") == 0)
        for bad in ["", "1e3", "0.1234567", "1.2.3", "-0.5", "NaN", "inf", "1000001", "０.５"] { #expect(Tariffs.price(bad) == nil, "\(bad)") }
        #expect(Tariffs.hours("00:00-24:00") == [Tariffs.Hours(start: 0, end: 1440)])
        for bad in ["", "08:00", "08:00-08:00", "24:00-01:00", "8:00-11:00", "08:60-09:00", "08:00-24:30", "a-b"] {
            #expect(Tariffs.hours(bad) == nil, "\(bad)")
        }
        #expect(TimeZoneRules.fixedOffset("UTC") == 0 && TimeZoneRules.fixedOffset("UTC+08:00") == 28_800)
        #expect(TimeZoneRules.fixedOffset("-05:30") == -19_800)
        for bad in ["Asia/Shanghai", "UTC+15", "UTC+08:60", "+", "UTC 8", "CST", ""] {
            #expect(TimeZoneRules.fixedOffset(bad) == nil, "\(bad)")
        }
    }
}
