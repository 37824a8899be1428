import WPText
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import WPLogging

extension SimulatedDevice {
    /// The device object exactly as WinPower lists it, at `t` seconds of simulated time:
    /// every reading a string, like the captured server.
    public func json(at t: Double) -> String {
        let realtime = realtimeFields(at: t).map { "\($0.0.jsonQuoted):\($0.1.jsonQuoted)" }
        let alarms = alarmCodes.map(alarmJSON)
        let ratingVa = curve.base > 400 ? 6000 : 3000
        let phases = threePhase ? 3 : 1
        return """
        {"assetDevice":{"id":\(id.jsonQuoted),"deviceType":1,"model":\(model.jsonQuoted),\
        "alias":\(alias.jsonQuoted),"protocolId":13,"connectType":1,"comPort":"COM\(3 + index % 4)",\
        "baudRate":2400,"areaId":\(areaId.jsonQuoted),"isActive":true,\
        "firmwareVersion":"03.09","createTime":"2025-10-13T08:\(createTimeMinuteSecond).048192",\
        "warrantyStatus":0},\
        "realtime":{\(realtime.joined(separator: ","))},\
        "config":{"inputPhaseNumber":"\(phases)","ratingBatUnitNumber":"6","upsModuleNumber":"1","ratingBatVoltPerUnit":"12",\
        "ratingVa":"\(ratingVa)","inputSourceNumber":"1","ratingVolt":"220","outputPhaseNumber":"\(phases)","ratingFreq":"50",\
        "ratingBatVolt":"72"},\
        "setting":{"enableAudible":"1","enableBypassWhenTurnOff":"0","batteryModuleNumber":"1","autoTestPeriod":"90",\
        "enableAutoRestart":"1"},\
        "activeAlarms":[\(alarms.joined(separator: ","))],\
        "controlSupported":{"supportQuickTest":true,"supportDeepTest":true,"supportTestDuration":true,\
        "supportShutdown":\(index % 2 == 0)},\
        "connected":\(role != .disconnected)}
        """
    }

    /// The `realtime` members in the captured server's order.
    public func realtimeFields(at t: Double) -> [(String, String)] {
        let names = ["inputVolt1", "outputVoltageType", "loadPercent", "isCharging", "inputTransformerType", "batVoltP",
                     "outputCurrent1", "upsTemperature", "mode", "batRemainTime", "loadVa1", "faultCode", "outputVolt1",
                     "outputFreq", "inputFreq", "loadTotalVa", "batteryStatus", "testStatus", "loadTotalWatt",
                     "loadWatt1", "batCapacity", "status"]
        guard role != .disconnected else { return names.map { ($0, "") } }
        let phase = Double(index)
        let watts = curve.watts(at: t)
        let va = watts / 0.96
        let ratingVa = curve.base > 400 ? 6000.0 : 3000.0
        let outputVolt = 220 + 0.4 * sin(t / 97 + phase)
        let onBattery = role == .onBattery
        let discharging = onBattery || role == .batteryTest
        let phases = threePhase ? 3 : 1
        let capacity = !discharging ? 100
            : battery.map { max(5, 100 - max(0, t - $0.start) * 100 / $0.runtime) } ?? max(5, 95 - t / 120)
        let values: [String: String] = [
            "inputVolt1": onBattery ? "0.0" : Self.fixed(231 + 6 * sin(t / 300 + phase), 1),
            "outputVoltageType": "0",
            "loadPercent": Self.fixed(va / ratingVa * 100, 0),
            "isCharging": discharging || capacity >= 100 ? "0" : "1",
            "inputTransformerType": "0",
            "batVoltP": Self.fixed(discharging ? 70 + capacity / 10 : 81.4, 1),
            "outputCurrent1": Self.fixed(va / Double(phases) / outputVolt, 1),
            "upsTemperature": Self.fixed(27 + 3 * sin(t / 1800 + phase), 1),
            "mode": role.modeCode,
            "batRemainTime": Self.fixed(capacity * 75, 0),
            "loadVa1": Self.fixed(va / Double(phases), 0),
            "faultCode": faultCode,
            "outputVolt1": Self.fixed(outputVolt, 1),
            "outputFreq": Self.fixed(50 + 0.1 * sin(t / 60 + phase), 1),
            "inputFreq": onBattery ? "0.0" : Self.fixed(50 + 0.1 * sin(t / 60 + phase), 1),
            "loadTotalVa": Self.fixed(va, 0),
            "batteryStatus": "2",
            // 5 "running" is the HID protocol's code; its meaning over REST is unverified.
            "testStatus": role == .batteryTest ? "5" : "1",
            // Full precision, so a test can compare integrated energy with the curve exactly.
            "loadTotalWatt": "\(watts)",
            "loadWatt1": "\(watts / Double(phases))",
            "batCapacity": Self.fixed(capacity, 0),
            "status": role == .onBattery || role == .fault ? "2" : "1",
        ]
        var fields = names.map { ($0, values[$0] ?? "") }
        if threePhase { fields += phaseFields(watts: watts, va: va, outputVolt: outputVolt, onBattery: onBattery, t: t) }
        if extraReadings > 0 { fields += extraFields(at: t) }
        return fields
    }

    /// A three-phase UPS's phase 2 and 3 members and the per-phase input currents; the load
    /// shared evenly, so phase 1's `loadWatt1`/`loadVa1` hold a third of the total.
    private func phaseFields(watts: Double, va: Double, outputVolt: Double, onBattery: Bool, t: Double) -> [(String, String)] {
        var fields: [(String, String)] = []
        for phase in 1...3 {
            let shift = Double(index) + Double(phase) * 2.1
            let inputVolt = onBattery ? 0 : 231 + 6 * sin(t / 300 + shift)
            if phase > 1 {
                fields.append(("inputVolt\(phase)", Self.fixed(inputVolt, 1)))
                fields.append(("outputVolt\(phase)", Self.fixed(outputVolt + 0.3 * Double(phase - 1), 1)))
                fields.append(("outputCurrent\(phase)", Self.fixed(va / 3 / outputVolt, 1)))
                fields.append(("loadWatt\(phase)", "\(watts / 3)"))
                fields.append(("loadVa\(phase)", Self.fixed(va / 3, 0)))
            }
            fields.append(("inputCurrent\(phase)", Self.fixed(onBattery ? 0 : va / 3 / max(inputVolt, 1) * 1.02, 1)))
        }
        return fields
    }

    /// Members an older WinPower sent that the captured server does not, then numbered ones,
    /// and one text member (not a number: never exported).
    private func extraFields(at t: Double) -> [(String, String)] {
        let named = ["emdTemp", "emdHumidity", "batTemp", "bypassVolt", "bypassFreq", "loadSegment1State"]
        let shift = Double(index)
        var fields = (0..<extraReadings).map { number -> (String, String) in
            let value: Double = switch number {
            case 0: 24 + 2 * sin(t / 900 + shift)
            case 1: 45 + 5 * sin(t / 1200 + shift)
            case 2: 25 + sin(t / 1800 + shift)
            case 3: role == .disconnected ? 0 : 230 + 3 * sin(t / 400 + shift)
            case 4: 50
            case 5: 1
            default: Double(number)
            }
            return (number < named.count ? named[number] : "reading\(number + 1)", Self.fixed(value, number == 5 ? 0 : 1))
        }
        fields.append(("bypassState", "normal"))
        return fields
    }

    /// One `activeAlarms` entry for `code`: an object with a code and a name, or, with
    /// ``alarmShapes``, the shapes other WinPower builds send.
    private func alarmJSON(_ code: String) -> String {
        guard alarmShapes else {
            return "{\"alarmCode\":\(code.jsonQuoted),\"alarmName\":\(alarmName(code).jsonQuoted),\"level\":\"2\"}"
        }
        switch code {
        case "0x0107": return code.jsonQuoted
        case "501": return "501"
        case "0x0201":
            return "{\"code\":\"0x0201\",\"message\":\"Battery test running, do not disconnect mains\",\"id\":\"\(1000 + index)\"}"
        default:
            return "{\"alarmCode\":\(code.jsonQuoted),\"alarmName\":\(alarmName(code).jsonQuoted),\"level\":\"2\"}"
        }
    }

    /// `mm:ss` of the device's creation time: a different second for each index.
    private var createTimeMinuteSecond: String {
        String(index / 60 % 60, width: 2) + ":" + String(index % 60, width: 2)
    }

    private func alarmName(_ code: String) -> String {
        code == "0x0011" ? "Utility power failure" : "Fan failure"
    }

    private static func fixed(_ value: Double, _ digits: Int) -> String {
        String(fixed: value, fractionDigits: digits)
    }
}

/// JSON text helpers for the simulator's hand-built responses.
enum SimulatorJSON {
    /// A stable uuid-shaped string for `serial`.
    static func uuid(_ serial: Int) -> String {
        let hex = String(UInt64(truncatingIfNeeded: serial), radix: 16, width: 12)
        return "6a8e1f0b-2c3d-4e5f-8a9b-" + hex
    }
}
