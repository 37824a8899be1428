import Testing
import WPTestThreads
@testable import WPSNMP

/// A UPS with every reading, three-phase input and output, a bypass and two alarms.
func fullUPS() -> UPSMIBValues {
    var ups = UPSMIBValues()
    ups.manufacturer = "ACME Power Systems International Ltd"  // 36 bytes: cut to 31
    ups.model = "C3K"
    ups.upsSoftwareVersion = "V1.02"
    ups.agentSoftwareVersion = "wpexporter 1.0"
    ups.name = "rack-a"
    ups.attachedDevices = "servers"
    ups.batteryStatus = .batteryNormal
    ups.secondsOnBattery = 0
    ups.runtimeRemaining = 1500
    ups.estimatedChargeRemaining = 87
    ups.batteryVoltage = 27.34
    ups.batteryCurrent = -1.25
    ups.batteryTemperature = 31
    ups.inputLineBads = 3
    ups.inputLines = [.init(frequency: 49.96, voltage: 229.6, current: 4.04, truePower: 900),
                      .init(frequency: 50.0, voltage: 231), .init(voltage: 228)]
    ups.outputSource = .normal
    ups.outputFrequency = 50
    ups.outputLines = [.init(voltage: 230, current: 3.5, power: 800, percentLoad: 27)]
    ups.bypassFrequency = 50.02
    ups.bypassLines = [.init(voltage: 229)]
    ups.alarms = [.init(id: 1, alarm: .onBattery, time: 1234), .init(id: 7, alarm: .testInProgress)]
    ups.testID = .quickBatteryTest
    ups.testResult = .donePass
    ups.testResultDetail = "passed"
    ups.testStartTime = 100
    ups.testElapsedTime = 1500
    ups.nominalInputVoltage = 230
    ups.nominalInputFrequency = 50
    ups.nominalOutputVoltage = 230
    ups.nominalOutputFrequency = 50
    ups.nominalOutputVA = 3000
    ups.nominalOutputPower = 2700
    ups.lowBatteryTime = 120
    return ups
}

func fullView() -> MIBTable {
    var builder = MIBBuilder()
    SystemGroup(description: "wpexporter UPS agent", upTime: 42, contact: "ops", name: "gw", location: "hall 1").add(to: &builder)
    fullUPS().add(to: &builder)
    return builder.build()
}

@Suite(.ownThreads, .timeLimit(.minutes(2))) struct MIBTests {
    @Test func oidsOrderLexicographically() {
        let sorted: [OID] = ["1.3.6.1", "1.3.6.1.0", "1.3.6.1.2.1.1.1.0", "1.3.6.1.2.1.1.10", "1.3.6.1.2.1.2", "1.3.6.2"]
        #expect(sorted.shuffled().sorted() == sorted)
        #expect(OID("1.3.6.1.2.1.1.1.0").isPrefixed(by: "1.3.6.1.2.1.1"))
        #expect(!OID("1.3.6.1.2.1.10").isPrefixed(by: "1.3.6.1.2.1.1"))
    }

    @Test func tableAnswersGetAndNextByBinarySearch() {
        let view = fullView()
        #expect(view.get("1.3.6.1.2.1.1.1.0") == .string("wpexporter UPS agent"))
        #expect(view.get("1.3.6.1.2.1.1.1") == .noSuchInstance)
        #expect(view.get("1.3.6.1.2.1.1.1.1") == .noSuchInstance)
        #expect(view.get("1.3.6.1.2.1.33.1.3.3.1.3.9") == .noSuchInstance)  // upsInputVoltage.9: no line 9
        #expect(view.get("1.3.6.1.2.1.1.8.0") == .noSuchObject)
        #expect(view.get("1.3.6.1.4.1") == .noSuchObject)
        #expect(view.get("1.3") == .noSuchObject)
        #expect(view.next(after: "0.0")?.oid == "1.3.6.1.2.1.1.1.0")
        #expect(view.next(after: "1.3.6.1.2.1.1.1.0")?.oid == "1.3.6.1.2.1.1.2.0")
        #expect(view.next(after: "1.3.6.1.2.1.1.1.0.5")?.oid == "1.3.6.1.2.1.1.2.0")
        #expect(view.next(after: "1.3.6.1.2.1.1.7.0")?.oid == "1.3.6.1.2.1.33.1.1.1.0")
        #expect(view.next(after: "1.3.6.1.2.1.33.1.9.7.0") == nil)
        #expect(view.next(after: "2") == nil)
        // A walk visits every instance once, in order.
        var walked: [OID] = []
        var cursor: OID = "1"
        while let found = view.next(after: cursor) {
            walked.append(found.oid)
            cursor = found.oid
        }
        #expect(walked == view.instances.map(\.oid))
        #expect(walked == walked.sorted() && Set(walked).count == walked.count)
    }

    @Test func systemGroupServesItsSevenScalars() {
        let view = fullView()
        #expect(view.get("1.3.6.1.2.1.1.2.0") == .objectIdentifier("1.3.6.1.2.1.33"))
        #expect(view.get("1.3.6.1.2.1.1.3.0") == .timeTicks(42))
        #expect(view.get("1.3.6.1.2.1.1.4.0") == .string("ops"))
        #expect(view.get("1.3.6.1.2.1.1.5.0") == .string("gw"))
        #expect(view.get("1.3.6.1.2.1.1.6.0") == .string("hall 1"))
        #expect(view.get("1.3.6.1.2.1.1.7.0") == .integer(72))
    }

    @Test func upsObjectsCarryTheRFC1628UnitsAndOIDs() {
        let view = fullView()
        let ups: OID = "1.3.6.1.2.1.33.1"
        #expect(view.get(ups.appending(1, 1, 0)) == .string("ACME Power Systems Internationa"))
        #expect(view.get(ups.appending(1, 2, 0)) == .string("C3K"))
        #expect(view.get(ups.appending(2, 1, 0)) == .integer(2))        // batteryNormal
        #expect(view.get(ups.appending(2, 2, 0)) == .integer(0))        // seconds on battery
        #expect(view.get(ups.appending(2, 3, 0)) == .integer(25))       // 1500 s = 25 min
        #expect(view.get(ups.appending(2, 4, 0)) == .integer(87))       // percent
        #expect(view.get(ups.appending(2, 5, 0)) == .integer(273))      // 0.1 V DC
        #expect(view.get(ups.appending(2, 6, 0)) == .integer(-13))      // 0.1 A DC, rounded away from zero
        #expect(view.get(ups.appending(2, 7, 0)) == .integer(31))
        #expect(view.get(ups.appending(3, 1, 0)) == .counter32(3))
        #expect(view.get(ups.appending(3, 2, 0)) == .integer(3))
        #expect(view.get(ups.appending(3, 3, 1, 2, 1)) == .integer(500))  // 49.96 Hz in 0.1 Hz
        #expect(view.get(ups.appending(3, 3, 1, 3, 1)) == .integer(230))  // RMS volts
        #expect(view.get(ups.appending(3, 3, 1, 4, 1)) == .integer(40))   // 0.1 A
        #expect(view.get(ups.appending(3, 3, 1, 5, 1)) == .integer(900))  // W
        #expect(view.get(ups.appending(3, 3, 1, 3, 3)) == .integer(228))
        #expect(view.get(ups.appending(3, 3, 1, 2, 3)) == .noSuchInstance)
        #expect(view.get(ups.appending(4, 1, 0)) == .integer(3))          // normal
        #expect(view.get(ups.appending(4, 2, 0)) == .integer(500))
        #expect(view.get(ups.appending(4, 3, 0)) == .integer(1))
        #expect(view.get(ups.appending(4, 4, 1, 3, 1)) == .integer(35))
        #expect(view.get(ups.appending(4, 4, 1, 5, 1)) == .integer(27))
        #expect(view.get(ups.appending(5, 1, 0)) == .integer(500))        // 50.02 Hz
        #expect(view.get(ups.appending(5, 2, 0)) == .integer(1))
        #expect(view.get(ups.appending(6, 1, 0)) == .gauge32(2))
        #expect(view.get(ups.appending(6, 2, 1, 2, 1)) == .objectIdentifier("1.3.6.1.2.1.33.1.6.3.2"))   // upsAlarmOnBattery
        #expect(view.get(ups.appending(6, 2, 1, 3, 1)) == .timeTicks(1234))
        #expect(view.get(ups.appending(6, 2, 1, 2, 7)) == .objectIdentifier("1.3.6.1.2.1.33.1.6.3.24"))  // upsAlarmTestInProgress
        #expect(view.get(ups.appending(7, 1, 0)) == .objectIdentifier("1.3.6.1.2.1.33.1.7.7.4"))         // quick battery test
        #expect(view.get(ups.appending(7, 3, 0)) == .integer(1))
        #expect(view.get(ups.appending(7, 4, 0)) == .string("passed"))
        #expect(view.get(ups.appending(7, 5, 0)) == .timeTicks(100))
        #expect(view.get(ups.appending(7, 6, 0)) == .integer(1500))
        #expect(view.get(ups.appending(9, 2, 0)) == .integer(500))
        #expect(view.get(ups.appending(9, 5, 0)) == .integer(3000))
        #expect(view.get(ups.appending(9, 7, 0)) == .integer(2))          // 120 s = 2 min
        #expect(UPSMIB.WellKnownAlarm.lowBattery.oid == "1.3.6.1.2.1.33.1.6.3.3")
        #expect(UPSMIB.WellKnownAlarm.allCases.count == 24)
    }

    @Test func readingsThatDoNotFitTheirTypeHaveNoInstance() {
        var ups = UPSMIBValues()
        ups.estimatedChargeRemaining = 101
        ups.runtimeRemaining = 20         // 0 minutes: not a PositiveInteger
        ups.batteryVoltage = -1
        ups.secondsOnBattery = .nan
        ups.nominalOutputVA = 1e12
        ups.batteryTemperature = -.infinity
        ups.alarms = [.init(id: 0, alarm: .onBattery), .init(id: 2, alarm: .lowBattery)]
        var builder = MIBBuilder()
        ups.add(to: &builder)
        let view = builder.build()
        #expect(view.instances.map(\.oid) == [UPSMIB.Input.numLines.appending(0), UPSMIB.Output.numLines.appending(0),
                                              UPSMIB.Alarm.present.appending(0), UPSMIB.Alarm.descr.appending(2),
                                              UPSMIB.Alarm.time.appending(2)])
        #expect(view.get(UPSMIB.Alarm.present.appending(0)) == .gauge32(1))
        #expect(view.get(UPSMIB.Battery.estimatedChargeRemaining.appending(0)) == .noSuchObject)
    }

    /// DisplayStrings are printable ASCII (RFC 2579): Chinese in pinyin, Latin letters without
    /// diacritics, then cut.
    @Test func displayStringsAreASCIIAndCut() {
        #expect(SNMPValue.displayString("Zürich", maxBytes: 2) == .string("Zu"))
        #expect(SNMPValue.displayString("Zürich", maxBytes: 255) == .string("Zurich"))
        #expect(SNMPValue.displayString("abc", maxBytes: 255) == .string("abc"))
        #expect(SNMPValue.displayString("机房 A（主）", maxBytes: 255) == .string("jifang A(zhu)"))
        #expect(SNMPValue.displayString("机房", maxBytes: 4) == .string("jifa"))
        #expect(SNMPValue.displayString("机房", maxBytes: 0) == .string(""))
    }

    /// A hostile alias (ESC, NUL, BEL, U+202E) as upsIdentName and sysName: each of those
    /// characters is served as `?`, the rest as it was.
    @Test func controlAndBidiCharactersAreServedReplaced() {
        let hostile = "evil\u{1B}[2J\u{0}\u{7}\u{202E}spu"
        let shown = SNMPValue.string("evil?[2J???spu")
        var ups = UPSMIBValues()
        ups.name = hostile
        var builder = MIBBuilder()
        SystemGroup(description: "agent", name: hostile).add(to: &builder)
        ups.add(to: &builder)
        let view = builder.build()
        #expect(view.get(UPSMIB.Ident.name.appending(0)) == shown)
        #expect(view.get("1.3.6.1.2.1.1.5.0") == shown)
        #expect(SNMPValue.displayString(hostile, maxBytes: 5) == .string("evil?"), "cut after replacing")
    }

    @Test func upTimeIsAnsweredLive() {
        let clock = ContinuousClock()
        let view = fullView().withLiveUpTime(since: clock.now.advanced(by: .seconds(-5)), clock: clock)
        guard case .timeTicks(let ticks) = view.get("1.3.6.1.2.1.1.3.0") else {
            Issue.record("sysUpTime is not TimeTicks")
            return
        }
        #expect(ticks >= 500 && ticks < 500 + 6000)
        guard case .timeTicks(let walked) = view.next(after: "1.3.6.1.2.1.1.2.0")?.value else {
            Issue.record("the walk's sysUpTime is not TimeTicks")
            return
        }
        #expect(walked >= ticks)
        #expect(view.get("1.3.6.1.2.1.1.3") == .noSuchInstance)
        #expect(view.next(after: "1.3.6.1.2.1.1.3.0")?.oid == "1.3.6.1.2.1.1.4.0")
    }

    /// The agent's own sysName over a UPS's view: got and walked, nothing else changed.
    @Test func sysNameIsReplacedInGetAndWalk() {
        let view = fullView().withSysName("ups-gateway")
        #expect(fullView().get("1.3.6.1.2.1.1.5.0") == .string("gw"))
        #expect(view.get("1.3.6.1.2.1.1.5.0") == .string("ups-gateway"))
        #expect(view.get("1.3.6.1.2.1.1.5") == .noSuchInstance)
        #expect(view.next(after: "1.3.6.1.2.1.1.4.0") == VarBind("1.3.6.1.2.1.1.5.0", .string("ups-gateway")))
        #expect(view.get("1.3.6.1.2.1.1.4.0") == .string("ops"))
        #expect(view.get("1.3.6.1.2.1.1.6.0") == .string("hall 1"))
        #expect(fullView().withSysName(String(repeating: "x", count: 300)).get("1.3.6.1.2.1.1.5.0") == .string(String(repeating: "x", count: 255)))
    }
}
