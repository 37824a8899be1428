package import FoundationEssentials
package import WPClient
package import WPCollector
import WPNUT
import WPNUTFrontEnd
package import WPSNMP

/// The UPS-MIB (RFC 1628) values of one WinPower device, in plain units (``UPSMIBValues``
/// scales them to the MIB's). A reading WinPower did not give has no instance, never `0`;
/// WinPower readings without a UPS-MIB object stay out (docs/snmp.md lists them).
package enum UPSMIBMapping {
    /// - Parameters:
    ///   - device: the latest reading.
    ///   - name: `upsIdentName`, the UPS's name (as NUT names it).
    ///   - agentVersion: `upsIdentAgentSoftwareVersion`.
    ///   - lowBatteryTime: `upsConfigLowBattTime`, seconds (the NUT low-runtime threshold).
    /// The alarm rows carry provisional ids (the alarm's number); ``SNMPFleetSource`` numbers
    /// them as RFC 1628 asks and keeps their times.
    ///   - test: the device's self-tests from the outage ledger and the times the test group is
    ///     reckoned in (``TestTimes``); `nil` serves WinPower's `testStatus` alone.
    ///   - onBatterySince: the outage ledger's start of the outage in progress (wall clock);
    ///     with `now`, `upsSecondsOnBattery` while the UPS is on battery (0 without it).
    package static func values(of device: Device, name: String, agentVersion: String, lowBatteryTime: Double?,
                               test: TestTimes? = nil, onBatterySince: Date? = nil, now: Date? = nil,
                               replaceBattery: Bool = false) -> UPSMIBValues {
        var ups = UPSMIBValues()
        let realtime = device.realtime
        ups.model = device.asset.model
        ups.upsSoftwareVersion = device.asset.firmwareVersion
        ups.agentSoftwareVersion = "wpexporter \(agentVersion)"
        ups.name = name
        ups.attachedDevices = device.asset.alias
        ups.estimatedChargeRemaining = realtime.batCapacity
        ups.runtimeRemaining = realtime.batRemainTime
        ups.batteryVoltage = realtime.batVoltP
        ups.batteryTemperature = realtime.upsTemperature
        let mode = device.operatingMode
        // A battery self-test (mode 5) is not an outage: mains is there and the UPS goes back to
        // it when the test ends. Served as normal, as the NUT server says `OL TEST`: no
        // upsTrapOnBattery, no `OB` in NUT's snmp-ups; the test shows in the test group and as
        // upsAlarmTestInProgress (its upsTrapAlarmEntryAdded), then upsTrapTestCompleted.
        ups.outputSource = switch mode {
        case .line, .powerOn, .batteryTest: .normal
        case .bypass: .bypass
        case .battery: .battery
        case .standby: UPSMIB.OutputSource.none
        case .fault: .other
        case nil: nil
        }
        let low = NUTVariables.isLow(device, NUTThresholds(chargeLow: 10, runtimeLow: lowBatteryTime ?? 120))
        if realtime.batteryStatus == 4 {
            ups.batteryStatus = .batteryDepleted
        } else if realtime.batCapacity != nil || realtime.batRemainTime != nil || low {
            ups.batteryStatus = low ? .batteryLow : .batteryNormal
        }
        // RFC 1628: the time since the UPS last switched to battery, zero when not on battery.
        // WinPower does not say; the outage ledger knows when the outage in progress began.
        if mode != nil {
            var seconds = 0.0
            if ups.outputSource == .battery, let onBatterySince, let now {
                seconds = max(0, now.timeIntervalSince(onBatterySince).rounded(.down))
            }
            ups.secondsOnBattery = seconds
        }
        // WinPower reports one input frequency: the lines of one supply share it, so every
        // line carries it (managers read upsInputFrequency per line).
        ups.inputLines = (1...NUTVariables.lines(device, .input)).map { phase in
            UPSMIBValues.InputLine(frequency: realtime.inputFreq, voltage: realtime.phase(.inputVolt, phase),
                                   current: realtime.phase(.inputCurrent, phase))
        }
        let outputs = NUTVariables.lines(device, .output)
        let loads = NUTVariables.outputLineLoads(device)
        ups.outputLines = (1...outputs).map { phase in
            UPSMIBValues.OutputLine(voltage: realtime.phase(.outputVolt, phase), current: realtime.phase(.outputCurrent, phase),
                                    power: outputs == 1 ? realtime.loadTotalWatt : realtime.phase(.loadWatt, phase),
                                    percentLoad: loads[phase - 1])
        }
        ups.outputFrequency = realtime.outputFreq
        ups.nominalInputVoltage = device.config.ratingVolt
        ups.nominalInputFrequency = device.config.ratingFreq
        ups.nominalOutputVoltage = device.config.ratingVolt
        ups.nominalOutputFrequency = device.config.ratingFreq
        ups.nominalOutputVA = device.config.ratingVa
        ups.lowBatteryTime = lowBatteryTime
        addTest(to: &ups, record: test?.record, status: realtime.testStatus, inTestMode: mode == .batteryTest, times: test)
        // The alarm table: what the mode and readings say, as RFC 1628's well-known alarms.
        var alarms: [UPSMIB.WellKnownAlarm] = []
        if mode == .battery { alarms.append(.onBattery) }
        // upsAlarmBatteryBad: "one or more batteries have been determined to require
        // replacement" — the battery's measured health is low (docs/battery.md).
        if replaceBattery { alarms.append(.batteryBad) }
        if low { alarms.append(.lowBattery) }
        if mode == .bypass { alarms.append(.onBypass) }
        if mode == .batteryTest { alarms.append(.testInProgress) }
        if mode == .standby { alarms.append(.upsOutputOff) }
        if mode == .fault || device.hasAlarm == true { alarms.append(.generalFault) }
        if device.connected == false { alarms.append(.communicationsLost) }
        ups.alarms = alarms.map { alarm in
            UPSMIBValues.Alarm(id: alarm.rawValue, alarm: alarm)
        }
        return ups
    }

    /// The times the UPS-MIB test group is reckoned in, with the ledger's record of the device.
    package struct TestTimes: Sendable {
        /// The device's self-tests as the outage ledger keeps them; `nil`: none seen.
        package var record: SelfTestRecord?
        /// When the agent started (`sysUpTime` 0): `upsTestStartTime` counts from it.
        package var agentStart: Date
        /// Now, for the elapsed time of a test in progress.
        package var now: Date
        /// When this agent saw the last test end (its first reading out of the test); `nil`
        /// when it did not (the test ended before this start, or none ended).
        package var end: Date?

        package init(record: SelfTestRecord?, agentStart: Date, now: Date, end: Date?) {
            (self.record, self.agentStart, self.now, self.end) = (record, agentStart, now, end)
        }
    }

    /// The test group: the ledger's last self-test (its start survives restarts; its result is
    /// WinPower's `testStatus` at the test's end), else WinPower's current `testStatus`.
    /// WinPower's mode 5 is its battery self-test: served as `upsTestQuickBatteryTest`.
    private static func addTest(to ups: inout UPSMIBValues, record: SelfTestRecord?, status: Int?, inTestMode: Bool, times: TestTimes?) {
        let inProgress = inTestMode || record?.inProgress == true
        let result = inProgress ? .inProgress : testResult(record?.lastStatus ?? status)
        guard let result else { return }
        ups.testResult = result
        // Only a test running now is named: NUT's IETF mapping reads upsTestId as the test in
        // progress (quick battery test → `TEST` in ups.status), so a finished one is
        // `upsTestNoTestsInitiated` and its result stays in the summary (docs/snmp.md).
        ups.testID = result == .inProgress ? .quickBatteryTest : .noTestsInitiated
        var detail = switch result {
        case .donePass: "battery self-test passed"
        case .doneWarning: "battery self-test passed with a warning"
        case .doneError: "battery self-test failed"
        case .aborted: "battery self-test aborted"
        case .inProgress: "battery self-test in progress"
        case .noTestsInitiated: "no battery self-test initiated"
        }
        if let code = inProgress ? status : record?.lastStatus ?? status { detail += " (WinPower testStatus \(code))" }
        if let record, record.count > 0 { detail += "; \(record.count) seen since counting began" }
        ups.testResultDetail = detail
        guard let times, let start = record?.lastStart, result != .noTestsInitiated else { return }
        ups.testStartTime = hundredths(start.timeIntervalSince(times.agentStart))
        if inProgress {
            ups.testElapsedTime = hundredths(times.now.timeIntervalSince(start))
        } else if let end = times.end {
            ups.testElapsedTime = hundredths(end.timeIntervalSince(start))
        }
    }

    /// `seconds` in hundredths, 0 for a negative or non-finite span, at most `UInt32.max`.
    static func hundredths(_ seconds: Double) -> UInt32 {
        guard seconds.isFinite, seconds > 0 else { return 0 }
        return UInt32(clamping: Int64(min(seconds * 100, Double(UInt32.max)).rounded(.down)))
    }

    /// `upsTestResultsSummary` for WinPower's `testStatus` code (read as the HID codes, as
    /// `ups.test.result` in NUT is).
    static func testResult(_ code: Int?) -> UPSMIB.TestResult? {
        // RFC 1628 numbers its results as the HID class does.
        SelfTestResult(testStatus: code).flatMap { UPSMIB.TestResult(rawValue: Int32($0.rawValue)) }
    }
}
