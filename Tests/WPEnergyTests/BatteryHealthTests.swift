import Foundation
import Testing
import WPTestThreads
@testable import WPEnergy
import WPStorage

/// The battery health measurement: discharges watched from readings, judged against the first,
/// kept in the data directory's sections, and the self-test interval.
@Suite(.ownThreads, .timeLimit(.minutes(3))) struct BatteryHealthTests {
    /// Wall time `seconds` after a fixed origin.
    func wall(_ seconds: Double) -> Date { Date(timeIntervalSince1970: 1_760_000_000 + seconds) }

    /// A discharge whose battery delivers `runtime` seconds from full charge at `watts`: 30 %
    /// of charge used, over 30 % of that runtime.
    func discharge(runtime: Double, watts: Double = 500, at end: Double, kind: BatteryDischarge.Kind = .outage,
                   temperature: Double? = 25) -> BatteryDischarge {
        let seconds = runtime * 0.3
        return BatteryDischarge(kind: kind, end: wall(end), seconds: seconds, startCharge: 100, chargeUsed: 30,
                                joules: watts * seconds, predictedRuntime: 7_500, temperature: temperature)
    }

    /// Readings of one discharge, one every `step` seconds from `start`: the charge falls by
    /// 100 % per `runtime` seconds.
    func readings(mode: Int = 4, from start: Double, seconds: Double, step: Double = 5, runtime: Double, watts: Double = 500)
        -> [BatteryReading] {
        stride(from: 0.0, through: seconds, by: step).map { elapsed in
            BatteryReading(mode: mode, charge: (100 - elapsed * 100 / runtime).rounded(), watts: watts, temperature: 25,
                           runtime: 7_500, time: wall(start + elapsed))
        }
    }

    @Test func aFallingRuntimeIsFlaggedAtTheMeasurementThatFallsBelowTheThreshold() {
        let runtimes = [1_200.0, 1_180, 1_100, 1_000, 900, 800]
        var flagged: [Int] = []
        for count in 1...runtimes.count {
            let discharges = runtimes.prefix(count).enumerated().map { discharge(runtime: $1, at: Double($0) * 86_400) }
            let verdict = BatteryHealthVerdict.judge(discharges)
            if count < 3 {
                #expect(verdict.health == nil, "\(count) measurements must not give a ratio")
            }
            if verdict.isLow { flagged.append(count) }
        }
        // 900 / 1,200 = 0.75: the fifth outage is the first below 0.8, and every one after it.
        #expect(flagged == [5, 6])
    }

    @Test func aFreshBatteryIsNotFlagged() throws {
        let discharges = (0..<6).map { discharge(runtime: 1_200 + Double($0 % 2) * 30, at: Double($0) * 86_400) }
        let verdict = BatteryHealthVerdict.judge(discharges)
        let health = try #require(verdict.health)
        #expect(abs(health - 1.025) < 0.001)
        #expect(!verdict.isLow)
        #expect(verdict.points.first?.note == .reference)
    }

    @Test func tooFewMeasurementsGiveNoNumber() {
        #expect(BatteryHealthVerdict.judge([]).health == nil)
        let two = BatteryHealthVerdict.judge([discharge(runtime: 1_200, at: 0), discharge(runtime: 400, at: 86_400)])
        #expect(two.health == nil)
        #expect(!two.isLow)
        #expect(two.measurements == 2)
        #expect(two.needed == 3)
        var rules = BatteryHealthRules()
        rules.minMeasurements = 2
        #expect(BatteryHealthVerdict.judge(two.points.map(\.discharge), rules: rules).isLow)
    }

    @Test func measurementsThatCannotTellAreShownButNotCompared() throws {
        var rules = BatteryHealthRules()
        rules.minMeasurements = 2
        let short = BatteryDischarge(kind: .selfTest, end: wall(110), seconds: 20, startCharge: 100, chargeUsed: 2, joules: 10_000)
        var little = discharge(runtime: 1_200, at: 120)
        little.chargeUsed = 5
        var unpowered = discharge(runtime: 1_200, at: 130)
        unpowered.joules = 0
        let installed = wall(100)
        let before = discharge(runtime: 2_000, at: 50)
        let reference = discharge(runtime: 1_200, at: 200)
        let heavier = discharge(runtime: 1_200, watts: 1_500, at: 300)
        let colder = discharge(runtime: 600, at: 400, temperature: 5)
        let verdict = BatteryHealthVerdict.judge([before, short, little, unpowered, reference, heavier, colder],
                                                 installed: installed, rules: rules)
        #expect(verdict.points.map(\.note) == [.beforeInstallation, .tooShort, .tooLittleCharge, .noPower, .reference,
                                                .otherLoad, .otherTemperature])
        #expect(verdict.measurements == 1)
        #expect(verdict.health == nil)
    }

    @Test func loadIsCorrectedByPeukertsExponent() throws {
        // At 1.5 times the load, a battery of the same health delivers less energy per percent:
        // (1/1.5)^0.2 of it. The correction gives it back.
        var rules = BatteryHealthRules()
        rules.minMeasurements = 2
        let reference = discharge(runtime: 1_200, watts: 500, at: 0)
        let factor = pow(1 / 1.5, BatteryHealthRules.peukertExponent - 1)
        let heavier = discharge(runtime: 1_200 / 1.5 * factor, watts: 750, at: 86_400)
        let health = try #require(BatteryHealthVerdict.judge([reference, heavier], rules: rules).health)
        #expect(abs(health - 1) < 1e-9)
    }

    @Test func anEpisodeMeasuresFromItsFirstToItsLastOnBatteryReading() throws {
        var episode: DischargeEpisode?
        var ended: [DischargeEpisode] = []
        let line = BatteryReading(mode: 3, charge: 100, watts: 500, time: wall(0))
        if let done = DischargeEpisode.observe(line, into: &episode, maxGap: 60) { ended.append(done) }
        for reading in readings(from: 10, seconds: 300, runtime: 1_000) {
            if let done = DischargeEpisode.observe(reading, into: &episode, maxGap: 60) { ended.append(done) }
            // A reading published again is not taken twice.
            #expect(DischargeEpisode.observe(reading, into: &episode, maxGap: 60) == nil)
        }
        let back = BatteryReading(mode: 3, charge: 71, watts: 500, time: wall(320))
        if let done = DischargeEpisode.observe(back, into: &episode, maxGap: 60) { ended.append(done) }
        #expect(episode == nil)
        let measured = try #require(ended.first?.discharge)
        #expect(ended.count == 1)
        #expect(measured.kind == .outage)
        #expect(measured.seconds == 300)
        #expect(measured.chargeUsed == 30)
        #expect(abs(measured.joules - 150_000) < 1e-6)
        #expect(measured.temperature == 25)
        #expect(measured.predictedSecondsPerPercent == 75)
        #expect(abs(measured.secondsPerPercent - 10) < 1e-9)
    }

    @Test func aGapADisconnectOrAnotherKindEndsAnEpisode() throws {
        var episode: DischargeEpisode?
        var ended: [BatteryDischarge] = []
        func feed(_ reading: BatteryReading) {
            if let done = DischargeEpisode.observe(reading, into: &episode, maxGap: 60)?.discharge { ended.append(done) }
        }
        readings(from: 0, seconds: 100, runtime: 1_000).forEach(feed)
        // 200 s without a reading: the next starts another discharge.
        readings(from: 300, seconds: 100, runtime: 1_000).forEach(feed)
        #expect(ended.count == 1)
        // Disconnected: ends it.
        feed(BatteryReading(mode: nil, charge: nil, watts: nil, time: wall(420)))
        #expect(ended.count == 2 && episode == nil)
        // A self-test then an outage: two discharges of their kinds.
        readings(mode: 5, from: 500, seconds: 60, runtime: 600).forEach(feed)
        readings(mode: 4, from: 565, seconds: 60, runtime: 600).forEach(feed)
        feed(BatteryReading(mode: 3, charge: 90, watts: 500, time: wall(700)))
        #expect(ended.map(\.kind) == [.outage, .outage, .selfTest, .outage])
        // A reading without power leaves the discharge without energy (never a partial one).
        episode = nil
        feed(BatteryReading(mode: 4, charge: 100, watts: 500, time: wall(800)))
        feed(BatteryReading(mode: 4, charge: 95, watts: nil, time: wall(805)))
        feed(BatteryReading(mode: 4, charge: 90, watts: 500, time: wall(810)))
        feed(BatteryReading(mode: 3, charge: 90, watts: 500, time: wall(815)))
        #expect(ended.last?.joules == 0)
    }

    @Test func theMeterKeepsItsMeasurementsAndTheDischargeInProgressAcrossARestart() throws {
        let sections = StateSections()
        var rules = BatteryHealthRules()
        rules.minSeconds = 10
        let meter = BatteryHealthMeter(rules: rules, maxGap: 60, sections: sections)
        for reading in readings(from: 0, seconds: 200, runtime: 1_000) { meter.record(["ups": reading], at: reading.time) }
        let taken = meter.record(["ups": BatteryReading(mode: 3, charge: 80, watts: 500, time: wall(205))], at: wall(205))
        #expect(taken["ups"]?.chargeUsed == 20)
        // A second outage, stopped in its middle.
        for reading in readings(from: 1_000, seconds: 100, runtime: 500) { meter.record(["ups": reading], at: reading.time) }
        #expect(meter.watchedSince("ups") == wall(0))

        // The next process: continues the discharge from the kept records.
        let next = BatteryHealthMeter(rules: rules, maxGap: 60, sections: sections)
        #expect(next.restoration.unreadable == [])
        #expect(next.restoration.devices == 1)
        #expect(next.watchedSince("ups") == wall(0))
        #expect(next.discharges("ups").count == 1)
        for reading in readings(from: 1_110, seconds: 100, runtime: 500).map({ reading -> BatteryReading in
            var reading = reading
            reading.charge = (78 - (reading.time.timeIntervalSince(wall(1_110))) * 100 / 500).rounded()
            return reading
        }) { next.record(["ups": reading], at: reading.time) }
        next.record(["ups": BatteryReading(mode: 3, charge: 60, watts: 500, time: wall(1_215))], at: wall(1_215))
        let second = try #require(next.discharges("ups").last)
        #expect(next.discharges("ups").count == 2)
        #expect(second.seconds == 210)
        #expect(second.chargeUsed == 42)
        #expect(next.verdict("ups", installed: nil)?.measurements == 2)
        #expect(next.verdict("other", installed: nil) == nil)
    }

    @Test func unreadableRecordsAreNamedAndDropped() {
        let sections = StateSections()
        sections.replace(BatteryHealthMeter.section, with: [
            ["s", "ups", "1760000000"],
            ["m", "ups", "outage", "1760000100", "300", "100", "30", "150000", "7500", "25"],
            ["m", "ups", "blackout", "1760000100", "300", "100", "30", "150000", "", ""],
            ["m", "ups", "outage", "1760000100", "-3", "100", "30", "150000", "", ""],
            ["x", "ups", "1"],
            ["s", ""],
        ])
        let meter = BatteryHealthMeter(rules: BatteryHealthRules(), maxGap: 60, sections: sections)
        #expect(meter.discharges("ups").count == 1)
        #expect(meter.restoration.unreadable.count == 4)
        #expect(meter.restoration.unreadable.allSatisfy { $0.hasPrefix("battery-health record ") })
        #expect(meter.restoration.unreadable[2].contains("unknown type 'x'"))
    }

    @Test func atMostTheLatestMeasurementsAreKept() {
        var rules = BatteryHealthRules()
        rules.minSeconds = 1
        let meter = BatteryHealthMeter(rules: rules, maxGap: 60, sections: nil)
        for outage in 0..<(BatteryHealthMeter.keptPerDevice + 5) {
            let start = Double(outage) * 1_000
            for reading in readings(from: start, seconds: 20, runtime: 100) { meter.record(["ups": reading], at: reading.time) }
            meter.record(["ups": BatteryReading(mode: 3, charge: 100, watts: 500, time: wall(start + 30))], at: wall(start + 30))
        }
        let kept = meter.discharges("ups")
        #expect(kept.count == BatteryHealthMeter.keptPerDevice)
        // The reference (the first) stays; the oldest after it went.
        #expect(kept.first?.end == wall(20))
        #expect(kept.dropFirst().first?.end == wall(6_020))
    }

    /// Past the measurements kept, quick self-tests too small to compare go first, and the
    /// reference is never dropped: the ratio does not reset to a later, aged battery.
    @Test func trimmingKeepsTheReference() throws {
        var rules = BatteryHealthRules()
        rules.minSeconds = 60
        rules.minChargeUsed = 10
        let meter = BatteryHealthMeter(rules: rules, maxGap: 60, sections: nil)
        func discharge(at start: Double, seconds: Double, runtime: Double) {
            for reading in readings(from: start, seconds: seconds, runtime: runtime) { meter.record(["ups": reading], at: reading.time) }
            meter.record(["ups": BatteryReading(mode: 3, charge: 100, watts: 500, time: wall(start + seconds + 5))], at: wall(start + seconds + 5))
        }
        discharge(at: 0, seconds: 300, runtime: 1_000)                 // the reference: 30 points
        for test in 1...40 { discharge(at: Double(test) * 10_000, seconds: 20, runtime: 1_000) }   // 2 points each
        discharge(at: 500_000, seconds: 300, runtime: 1_000)
        discharge(at: 600_000, seconds: 300, runtime: 600)            // 60 % of the reference
        let kept = meter.discharges("ups")
        #expect(kept.count == BatteryHealthMeter.keptPerDevice)
        #expect(kept.first?.end == wall(300))
        let health = try #require(meter.verdict("ups", installed: nil)?.health)
        #expect(abs(health - 0.6) < 0.05)
    }

    @Test func aSelfTestIsOverdueAfterItsInterval() {
        var rules = BatteryHealthRules()
        #expect(rules.selfTestInterval(autoTestPeriodDays: 90) == 92 * 86_400)
        #expect(rules.selfTestInterval(autoTestPeriodDays: nil) == 31 * 86_400)
        #expect(rules.selfTestInterval(autoTestPeriodDays: 0) == 31 * 86_400)
        rules.selfTestDays = 14
        #expect(rules.selfTestInterval(autoTestPeriodDays: 90) == 14 * 86_400)
        let day = 86_400.0
        let interval = 14 * day
        // The last test 15 days ago: overdue; 13: not.
        #expect(BatteryHealthVerdict.testOverdue(lastTest: wall(0), watchedSince: wall(0), installed: nil, interval: interval, now: wall(15 * day)))
        #expect(!BatteryHealthVerdict.testOverdue(lastTest: wall(2 * day), watchedSince: wall(0), installed: nil, interval: interval, now: wall(15 * day)))
        // None seen: counted from the first sight, or from a later installation.
        #expect(BatteryHealthVerdict.testOverdue(lastTest: nil, watchedSince: wall(0), installed: nil, interval: interval, now: wall(15 * day)))
        #expect(!BatteryHealthVerdict.testOverdue(lastTest: nil, watchedSince: wall(0), installed: wall(5 * day), interval: interval, now: wall(15 * day)))
    }
}
