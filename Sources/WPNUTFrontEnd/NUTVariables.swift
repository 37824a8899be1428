package import WPClient

/// The low-battery thresholds of one UPS (`battery.charge.low`, `battery.runtime.low`): below
/// either, `ups.status` carries `LB`, and a primary `upsmon` shuts down on `OB LB`.
package struct NUTThresholds: Sendable, Equatable {
    /// `battery.charge.low`, percent.
    package var chargeLow: Double
    /// `battery.runtime.low`, seconds.
    package var runtimeLow: Double

    /// NUT's usual defaults: 10 % and 120 s.
    package init(chargeLow: Double = 10, runtimeLow: Double = 120) {
        self.chargeLow = chargeLow
        self.runtimeLow = runtimeLow
    }
}

/// The NUT variables of one WinPower device, with the standard NUT names and units.
///
/// A reading WinPower did not give is absent, never `0`. `ups.status` follows
/// ``status(of:thresholds:)``; `FSD` is the server's to add (``NUTServerState``).
package enum NUTVariables {
    /// Every variable of `device`, sorted by name (as upsd lists them).
    ///
    /// - Parameters:
    ///   - device: the latest reading.
    ///   - thresholds: the UPS's low-battery thresholds (exported too).
    ///   - driverVersion: `driver.version` (the exporter's version).
    package static func of(_ device: Device, thresholds: NUTThresholds, driverVersion: String,
                           replaceBattery: Bool = false) -> [(name: String, value: String)] {
        var values: [String: String] = [:]
        func set(_ name: String, _ value: Double?) {
            if let value, value.isFinite { values[name] = format(value) }
        }
        func set(_ name: String, _ text: String?) {
            if let text, !text.isEmpty { values[name] = text }
        }
        let realtime = device.realtime
        set("battery.charge", realtime.batCapacity)
        set("battery.runtime", realtime.batRemainTime)
        set("battery.voltage", realtime.batVoltP)
        set("battery.voltage.nominal", device.config.ratingBatVolt)
        set("battery.charge.low", thresholds.chargeLow)
        set("battery.runtime.low", thresholds.runtimeLow)
        // The configured battery (docs/battery.md), days as YYYY-MM-DD: installed, and due for replacement.
        set("battery.date", device.battery?.installed)
        set("battery.date.maintenance", device.battery?.replaceBy)
        set("input.voltage", realtime.inputVolt1)
        set("input.voltage.nominal", device.config.ratingVolt)
        set("input.frequency", realtime.inputFreq)
        set("input.frequency.nominal", device.config.ratingFreq)
        set("output.voltage", realtime.outputVolt1)
        set("output.current", realtime.outputCurrent1)
        set("output.frequency", realtime.outputFreq)
        set("ups.load", realtime.loadPercent)
        // A multi-phase side: NUT's three-phase names (docs/nut-names.txt), phase to neutral.
        let inputs = lines(device, .input)
        if inputs > 1 {
            set("input.phases", Double(inputs))
            for phase in 1...inputs {
                set("input.L\(phase)-N.voltage", realtime.phase(.inputVolt, phase))
                set("input.L\(phase).current", realtime.phase(.inputCurrent, phase))
            }
        }
        let outputs = lines(device, .output)
        if outputs > 1 {
            set("output.phases", Double(outputs))
            let loads = outputLineLoads(device)
            for phase in 1...outputs {
                set("output.L\(phase)-N.voltage", realtime.phase(.outputVolt, phase))
                set("output.L\(phase).current", realtime.phase(.outputCurrent, phase))
                set("output.L\(phase).realpower", realtime.phase(.loadWatt, phase))
                set("output.L\(phase).power", realtime.phase(.loadVa, phase))
                set("output.L\(phase).power.percent", loads[phase - 1])
            }
        }
        set("ups.realpower", realtime.loadTotalWatt)
        set("ups.power", realtime.loadTotalVa)
        set("ups.power.nominal", device.config.ratingVa)
        set("ups.temperature", realtime.upsTemperature)
        set("ups.test.result", testResult(realtime.testStatus))
        set("device.model", device.asset.model)
        set("ups.model", device.asset.model)
        set("ups.firmware", device.asset.firmwareVersion)
        set("ups.id", device.id)
        set("device.type", "ups")
        set("driver.name", "wpexporter")
        set("driver.version", driverVersion)
        if let alarms = device.activeAlarms, !alarms.codes.isEmpty {
            values["ups.alarm"] = alarms.codes.map { "alarm \($0)" }.joined(separator: ", ")
        }
        var status = status(of: device, thresholds: thresholds)
        // RB: the battery's measured health is low (docs/battery.md), as a UPS that reports
        // "replace battery" itself.
        if replaceBattery, !status.isEmpty { status.append("RB") }
        if !status.isEmpty { values["ups.status"] = status.joined(separator: " ") }
        return values.sorted { $0.key < $1.key }.map { (name: $0.key, value: $0.value) }
    }

    /// The `ups.status` words of `device`, safety first:
    ///
    /// - `OL` on mains (line, bypass, standby, powering on, and a self-test: the UPS runs on
    ///   battery on purpose while mains is present, so it is `OL TEST`, never `OB`, and no
    ///   `upsmon` shuts down for it); `OB` only in battery mode (an outage); neither in fault
    ///   mode or a missing or unknown mode (`ALARM` says so);
    /// - `LB` when the charge or the runtime is below its threshold;
    /// - `BYPASS`, `OFF` (standby: the output is off), `TEST`, `CHRG`/`DISCHRG`, `ALARM`
    ///   (alarms active, fault mode, or the mode missing or unknown).
    package static func status(of device: Device, thresholds: NUTThresholds) -> [String] {
        var words: [String] = []
        let realtime = device.realtime
        // Fault mode, or a mode missing or unknown: ALARM says that something is wrong, and
        // neither OL nor OB is claimed.
        if device.hasAlarm == true || device.operatingMode == .fault || device.operatingMode == nil { words.append("ALARM") }
        switch device.operatingMode {
        case .line, .powerOn: words.append("OL")
        case .bypass: words += ["OL", "BYPASS"]
        case .standby: words += ["OL", "OFF"]
        case .batteryTest: words += ["OL", "TEST"]
        case .battery: words.append("OB")
        case .fault, nil: break
        }
        if device.operatingMode == .battery || device.operatingMode == .batteryTest {
            words.append("DISCHRG")
        } else if realtime.isCharging == 1 {
            words.append("CHRG")
        }
        if isLow(device, thresholds) { words.append("LB") }
        return words
    }

    /// Whether WinPower flags the battery low or depleted itself, or the charge or the runtime
    /// is below its threshold.
    package static func isLow(_ device: Device, _ thresholds: NUTThresholds) -> Bool {
        if device.realtime.flagsLowBattery { return true }
        if let charge = device.realtime.batCapacity, charge < thresholds.chargeLow { return true }
        if let runtime = device.realtime.batRemainTime, runtime < thresholds.runtimeLow { return true }
        return false
    }

    /// A side of the UPS, for ``lines(_:_:)``.
    package enum Side: Sendable { case input, output }

    /// The lines (phases) of `side`: WinPower's `inputPhaseNumber`/`outputPhaseNumber`, 1 to 3
    /// (1 when it does not say).
    package static func lines(_ device: Device, _ side: Side) -> Int {
        let configured = side == .input ? device.config.inputPhaseNumber : device.config.outputPhaseNumber
        guard let configured, configured.isFinite else { return 1 }
        return Int(min(3, max(1, configured)))
    }

    /// The load of each output line in percent (`upsOutputPercentLoad`, `output.Ln.power.percent`).
    ///
    /// WinPower reports one `loadPercent`, the UPS's. One line: that. Several: each line's
    /// apparent power over its share of the rating (`loadVaN` / (`ratingVa` / lines)), RFC
    /// 1628's VA percentage, when WinPower gives every line's and the rating; else each line
    /// carries the UPS's `loadPercent` (no line is left without a load, none mixes the two).
    package static func outputLineLoads(_ device: Device) -> [Double?] {
        let outputs = lines(device, .output)
        let total = device.realtime.loadPercent
        guard outputs > 1 else { return [total] }
        let perLine = (1...outputs).map { device.realtime.phase(.loadVa, $0) }
        guard let rating = device.config.ratingVa, rating > 0, perLine.allSatisfy({ $0 != nil }) else {
            return Array(repeating: total, count: outputs)
        }
        let share = rating / Double(outputs)
        return perLine.map { $0.map { ($0 / share * 100).rounded() } }
    }

    /// `ups.test.result` for WinPower's `testStatus` code, read as the HID power device codes
    /// (unverified over REST: docs/nut.md).
    static func testResult(_ code: Int?) -> String? {
        switch SelfTestResult(testStatus: code) {
        case .passed: "Done and passed"
        case .warning: "Done and warning"
        case .error: "Done and error"
        case .aborted: "Aborted"
        case .inProgress: "In progress"
        case .noneInitiated: "No test initiated"
        case nil: nil
        }
    }

    /// A reading as NUT drivers write numbers: integers without a decimal point, other values
    /// in their shortest exact form (`230.5`).
    package static func format(_ value: Double) -> String {
        if value == value.rounded(), abs(value) < 1e15 { return String(Int64(value)) }
        return "\(value)"
    }
}
