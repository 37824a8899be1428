import WPClient
import WPSNMP

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
    package static func values(of device: Device, name: String, agentVersion: String, lowBatteryTime: Double?) -> UPSMIBValues {
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
        ups.outputSource = switch mode {
        case .line, .powerOn: .normal
        case .bypass: .bypass
        case .battery, .batteryTest: .battery
        case .standby: UPSMIB.OutputSource.none
        case .fault: .other
        case nil: nil
        }
        let low = NUTVariables.isLow(device, NUTThresholds(chargeLow: 10, runtimeLow: lowBatteryTime ?? 120))
        if realtime.batCapacity != nil || realtime.batRemainTime != nil {
            ups.batteryStatus = low ? .batteryLow : .batteryNormal
        }
        ups.secondsOnBattery = mode == nil ? nil : 0   // the time on battery is not read from WinPower
        let phases = max(1, Int(device.config.inputPhaseNumber ?? 1))
        ups.inputLines = (1...min(phases, 3)).map { phase in
            UPSMIBValues.InputLine(frequency: phase == 1 ? realtime.inputFreq : nil, voltage: realtime.phase(.inputVolt, phase),
                                   current: realtime.phase(.inputCurrent, phase))
        }
        let outputs = max(1, Int(device.config.outputPhaseNumber ?? 1))
        ups.outputLines = (1...min(outputs, 3)).map { phase in
            UPSMIBValues.OutputLine(voltage: realtime.phase(.outputVolt, phase), current: realtime.phase(.outputCurrent, phase),
                                    power: outputs == 1 ? realtime.loadTotalWatt : realtime.phase(.loadWatt, phase),
                                    percentLoad: phase == 1 ? realtime.loadPercent : nil)
        }
        ups.outputFrequency = realtime.outputFreq
        ups.nominalInputVoltage = device.config.ratingVolt
        ups.nominalInputFrequency = device.config.ratingFreq
        ups.nominalOutputVoltage = device.config.ratingVolt
        ups.nominalOutputFrequency = device.config.ratingFreq
        ups.nominalOutputVA = device.config.ratingVa
        ups.lowBatteryTime = lowBatteryTime
        ups.testResult = testResult(realtime.testStatus)
        if mode == .batteryTest { ups.testResult = .inProgress }
        // The alarm table: what the mode and readings say, as RFC 1628's well-known alarms.
        var alarms: [UPSMIB.WellKnownAlarm] = []
        if mode == .battery { alarms.append(.onBattery) }
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

    /// `upsTestResultsSummary` for WinPower's `testStatus` code (read as the HID codes, as
    /// `ups.test.result` in NUT is).
    static func testResult(_ code: Int?) -> UPSMIB.TestResult? {
        switch code {
        case 1: .donePass
        case 2: .doneWarning
        case 3: .doneError
        case 4: .aborted
        case 5: .inProgress
        case 6: .noTestsInitiated
        default: nil
        }
    }
}
