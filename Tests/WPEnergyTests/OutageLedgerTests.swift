import Foundation
import Testing
import WPTestThreads
import WPEnergy
import WPStorage
import WPTestSupport

/// The outage ledger on a manual clock: transfers, time and energy on battery, durations,
/// self-tests, gaps, disconnects and restarts (a restart is a new integrator seeded from the
/// saved state, as after a crash the state of the last save).
@Suite(.ownThreads, .timeLimit(.minutes(3))) struct OutageLedgerTests {
    /// A reading of `ups` in `mode`, 100 W, with the given runtime and test status.
    func reading(_ mode: Int?, watts: Double? = 100, runtime: Double? = nil, testStatus: Int? = nil,
                 connected: Bool = true) -> EnergySample {
        EnergySample(deviceID: "ups", watts: watts, connected: connected, mode: mode, runtimeSeconds: runtime,
                     testStatus: testStatus)
    }

    /// Wall time `seconds` after a fixed origin.
    func wall(_ seconds: Double) -> Date { Date(timeIntervalSince1970: 1_760_000_000 + seconds) }

    /// Feeds one reading per entry of `modes`, `step` seconds apart from `start`.
    func feed(_ integrator: inout EnergyIntegrator<Instant>, _ modes: [Int?], from start: Double = 0,
              step: Double = 5) {
        for (index, mode) in modes.enumerated() {
            let time = start + Double(index) * step
            integrator.integrate([reading(mode, runtime: mode == 4 ? 900 - time : nil)], at: at(time), wall: wall(time))
        }
    }

    /// Feeds `(seconds, mode)` readings, the wall clock in step with the monotonic one.
    func feed(_ integrator: inout EnergyIntegrator<Instant>, timed readings: [(Double, Int?)]) {
        for (time, mode) in readings { integrator.integrate([reading(mode)], at: at(time), wall: wall(time)) }
    }

    func ledger(_ integrator: EnergyIntegrator<Instant>) -> OutageLedger {
        integrator.total(for: "ups")?.ledger ?? OutageLedger()
    }

    @Test(arguments: [1, 2, 3, 7, 13, 25, 200, 1500])
    func outagesOfEveryLengthAreCountedTimedAndBucketed(readingsOnBattery: Int) {
        var integrator = makeIntegrator()
        feed(&integrator, [3] + Array(repeating: 4, count: readingsOnBattery) + [3])
        let result = ledger(integrator)
        let lastBattery = Double(readingsOnBattery) * 5
        #expect(result.transfers == 1)
        // From the midpoint of line→battery (2.5 s) to the midpoint of battery→line.
        #expect(result.onBatterySeconds == lastBattery)
        #expect(result.dischargeJoules == 100 * lastBattery)
        // The end is observed at the first reading back on line: 5 s after the last on battery.
        let duration = lastBattery
        #expect(result.lastDuration == duration)
        #expect(result.observedOutages == 1)
        #expect(result.durationSum == duration)
        let bucket = OutageLedger.durationBounds.firstIndex { duration <= $0 } ?? OutageLedger.durationBounds.count
        #expect(result.durationCounts[bucket] == 1)
        #expect(result.lastStart == wall(5))
        #expect(result.lastEnd == wall(lastBattery + 5))
        #expect(result.lastRuntime == 900 - lastBattery)
        #expect(!result.inOutage)
    }

    @Test func selfTestsAreCountedButAreNotOutages() {
        var integrator = makeIntegrator()
        integrator.integrate([reading(3)], at: at(0), wall: wall(0))
        integrator.integrate([reading(5, testStatus: 5)], at: at(5), wall: wall(5))
        integrator.integrate([reading(5, testStatus: 5)], at: at(10), wall: wall(10))
        integrator.integrate([reading(3, testStatus: 1)], at: at(15), wall: wall(15))
        integrator.integrate([reading(3, testStatus: 6)], at: at(20), wall: wall(20))
        let result = ledger(integrator)
        #expect(result.transfers == 0)
        #expect(result.onBatterySeconds == 0)
        #expect(result.dischargeJoules == 0)
        #expect(result.observedOutages == 0)
        #expect(result.tests == 1)
        #expect(result.lastTest == wall(5))
        // The status at the first reading after the test, not later ones.
        #expect(result.lastTestStatus == 1)
    }

    @Test func aGapOnBatteryIsNotBridgedAndIsCountedOnce() {
        var integrator = makeIntegrator(maxGap: .seconds(60))
        feed(&integrator, [3, 4, 4])
        feed(&integrator, timed: [(200, 4), (205, 4), (210, 3)])
        let result = ledger(integrator)
        #expect(result.transfers == 1)
        // 2.5 (line→battery) + 5 + 5 + 2.5 (battery→line); the 190 s gap is not bridged.
        #expect(result.onBatterySeconds == 15)
        #expect(integrator.total(for: "ups")?.gaps == 1)
        // The end was observed (the last on-battery reading was 5 s before).
        #expect(result.lastDuration == 205)
    }

    @Test func aGapWithUnusablePowerIsStillCountedAsAGap() {
        var integrator = makeIntegrator(maxGap: .seconds(60))
        integrator.integrate([reading(4)], at: at(0), wall: wall(0))
        integrator.integrate([reading(4, watts: nil)], at: at(100), wall: wall(100))
        #expect(integrator.total(for: "ups")?.gaps == 1)
        #expect(ledger(integrator).onBatterySeconds == 0)
    }

    @Test func aDisconnectMidOutageKeepsOneOutageAndLeavesItsEndUnknownIfItEndedUnseen() {
        var integrator = makeIntegrator(maxGap: .seconds(60))
        feed(&integrator, [3, 4, 4])
        integrator.integrate([reading(nil, watts: nil, connected: false)], at: at(15), wall: wall(15))
        integrator.integrate([reading(4)], at: at(20), wall: wall(20))
        integrator.integrate([reading(4)], at: at(25), wall: wall(25))
        #expect(ledger(integrator).transfers == 1)
        // 2.5 + 5 before the disconnect, 5 after it; nothing across it.
        #expect(ledger(integrator).onBatterySeconds == 12.5)
        // Unreachable for longer than max_gap, then back on line: the end is unknown.
        integrator.integrate([reading(nil, watts: nil, connected: false)], at: at(30), wall: wall(30))
        integrator.integrate([reading(3)], at: at(200), wall: wall(200))
        let result = ledger(integrator)
        #expect(result.transfers == 1)
        #expect(!result.inOutage)
        #expect(result.lastEnd == nil)
        #expect(result.lastDuration == nil)
        #expect(result.lastRuntime == nil)
        #expect(result.observedOutages == 0)
        #expect(result.lastStart == wall(5))
    }

    /// An integrator that saw an outage begin (on battery at 5 s and 10 s), then a new one
    /// seeded from its state: a restart (or a crash after that save), the new clock starting anew.
    func restartedDuringAnOutage() -> EnergyIntegrator<Instant> {
        var first = makeIntegrator()
        feed(&first, [3, 4, 4])
        return EnergyIntegrator(configuration: EnergyConfiguration(maxGap: .seconds(60)), seed: first.state())
    }

    @Test func anOutageInProgressAcrossARestartStaysOneOutage() {
        var second = restartedDuringAnOutage()
        second.integrate([reading(4)], at: at(0), wall: wall(40))
        second.integrate([reading(4)], at: at(5), wall: wall(45))
        second.integrate([reading(3)], at: at(10), wall: wall(50))
        let result = ledger(second)
        #expect(result.transfers == 1)
        // 7.5 before the restart (2.5 + 5), 5 + 2.5 after it; the time down is not bridged.
        #expect(result.onBatterySeconds == 15)
        #expect(result.lastStart == wall(5))
        // Observed end, duration from the stored wall-clock start.
        #expect(result.lastEnd == wall(50))
        #expect(result.lastDuration == 45)
        #expect(result.observedOutages == 1)
    }

    @Test func anOutageThatEndedWhileDownIsClosedWithItsEndUnknown() {
        var second = restartedDuringAnOutage()
        second.integrate([reading(3)], at: at(0), wall: wall(600))
        let result = ledger(second)
        #expect(result.transfers == 1)
        #expect(!result.inOutage)
        #expect(result.lastEnd == nil && result.lastDuration == nil)
        #expect(result.observedOutages == 0)
        // A new outage after that is a second transfer.
        second.integrate([reading(4)], at: at(5), wall: wall(605))
        #expect(ledger(second).transfers == 2)
    }

    @Test func unknownModesChangeNothingButBreakTheChain() {
        var integrator = makeIntegrator()
        feed(&integrator, [3, 4, 9, 4, nil, 4])
        let result = ledger(integrator)
        #expect(result.transfers == 1)
        // Only the line→battery half interval: no two on-battery readings are consecutive.
        #expect(result.onBatterySeconds == 2.5)
        #expect(result.inOutage)
    }

    /// Outages of random lengths and phases against readings every `interval`: the time on
    /// battery is off by at most half an interval per transition, so at most one interval per
    /// outage, and the sum of many outages' errors stays far below one interval per outage.
    @Test(arguments: [1.0, 5.0, 30.0])
    func timeOnBatteryIsWithinOneIntervalPerOutageOfTheTruth(interval: Double) {
        var generator = SplitMix64(seed: 23)
        var integrator = makeIntegrator(maxGap: .seconds(120))
        var truth = 0.0
        var time = Double.random(in: 0..<interval, using: &generator)
        var outageStart = time + Double.random(in: 1...600, using: &generator)
        var outageEnd = outageStart + Double.random(in: interval...3_600, using: &generator)
        var before = 0.0
        var outages = 0
        while outages < 200 {
            let onBattery = time >= outageStart && time < outageEnd
            integrator.integrate([reading(onBattery ? 4 : 3, watts: 250)], at: at(time), wall: wall(time))
            if time >= outageEnd {
                // The outage's closing reading: its whole time is in.
                let credited = ledger(integrator).onBatterySeconds - before
                let length = outageEnd - outageStart
                #expect(abs(credited - length) <= interval, "outage \(outages): \(credited) s for \(length) s")
                truth += length
                outages += 1
                before = ledger(integrator).onBatterySeconds
                outageStart = outageEnd + Double.random(in: interval...1_200, using: &generator)
                outageEnd = outageStart + Double.random(in: interval...3_600, using: &generator)
            }
            time += interval
        }
        let result = ledger(integrator)
        #expect(result.transfers == 200)
        #expect(abs(result.onBatterySeconds - truth) <= 200 * interval / 4)
        #expect(result.dischargeJoules == result.onBatterySeconds * 250)
    }

    @Test func theFirstTransferExportsNoTimeOnBatteryYet() {
        var integrator = makeIntegrator()
        feed(&integrator, [3, 4])
        // The line→battery half interval waits for the next reading, so the series appears at 0.
        #expect(ledger(integrator).transfers == 1)
        #expect(ledger(integrator).onBatterySeconds == 0)
        feed(&integrator, timed: [(10, 4)])
        #expect(ledger(integrator).onBatterySeconds == 7.5)
    }

    @Test func aTransitionIntervalLongerThanTheMaxGapAddsNoTime() {
        var integrator = makeIntegrator(maxGap: .seconds(60))
        feed(&integrator, timed: [(0, 3), (100, 4), (105, 4), (200, 3)])
        let result = ledger(integrator)
        #expect(result.transfers == 1)
        #expect(result.onBatterySeconds == 5)
        #expect(result.lastEnd == nil)
    }

    /// Random sequences of modes, connections, gaps and restarts: no total ever decreases, and
    /// observed outages never exceed transfers.
    @Test func totalsNeverDecrease() {
        var generator = SplitMix64(seed: 17)
        var integrator = makeIntegrator(maxGap: .seconds(30))
        var time = 0.0
        var previous = OutageLedger()
        for round in 0..<3_000 {
            time += [0, 1, 5, 10, 40].randomElement(using: &generator) ?? 5
            let mode = [3, 3, 4, 4, 4, 5, 2, nil, 12].randomElement(using: &generator) ?? 3
            let connected = Int.random(in: 0..<10, using: &generator) > 0
            integrator.integrate([reading(mode, watts: Double.random(in: 0...900, using: &generator),
                                          runtime: 600, testStatus: 1, connected: connected)],
                                 at: at(time), wall: wall(time))
            if round % 500 == 499 {
                integrator = EnergyIntegrator(configuration: integrator.configuration, seed: integrator.state())
                time = 0
            }
            let now = ledger(integrator)
            #expect(now.transfers >= previous.transfers)
            #expect(now.onBatterySeconds >= previous.onBatterySeconds)
            #expect(now.dischargeJoules >= previous.dischargeJoules)
            #expect(now.tests >= previous.tests)
            #expect(now.observedOutages >= previous.observedOutages)
            #expect(now.durationSum >= previous.durationSum)
            #expect(now.observedOutages <= now.transfers)
            previous = now
        }
        #expect(previous.transfers > 10)
        #expect(previous.observedOutages > 0)
    }
}
