import FoundationEssentials
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
        let alarms = alarmCodes.map { code in
            "{\"alarmCode\":\(code.jsonQuoted),\"alarmName\":\(alarmName(code).jsonQuoted),\"level\":\"2\"}"
        }
        let ratingVa = curve.base > 400 ? 6000 : 3000
        return """
        {"assetDevice":{"id":\(id.jsonQuoted),"deviceType":1,"model":"ON-LINE",\
        "alias":\(alias.jsonQuoted),"protocolId":13,"connectType":1,"comPort":"COM\(3 + index % 4)",\
        "baudRate":2400,"areaId":"00000000-0000-0000-0000-000000000000","isActive":true,\
        "firmwareVersion":"03.09","createTime":"2025-10-13T08:\(createTimeMinuteSecond).048192",\
        "warrantyStatus":0},\
        "realtime":{\(realtime.joined(separator: ","))},\
        "config":{"inputPhaseNumber":"1","ratingBatUnitNumber":"6","upsModuleNumber":"1","ratingBatVoltPerUnit":"12",\
        "ratingVa":"\(ratingVa)","inputSourceNumber":"1","ratingVolt":"220","outputPhaseNumber":"1","ratingFreq":"50",\
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
        let capacity = discharging ? max(5, 95 - t / 120) : 100
        let values: [String: String] = [
            "inputVolt1": onBattery ? "0.0" : Self.fixed(231 + 6 * sin(t / 300 + phase), 1),
            "outputVoltageType": "0",
            "loadPercent": Self.fixed(va / ratingVa * 100, 0),
            "isCharging": discharging || capacity >= 100 ? "0" : "1",
            "inputTransformerType": "0",
            "batVoltP": Self.fixed(discharging ? 70 + capacity / 10 : 81.4, 1),
            "outputCurrent1": Self.fixed(va / outputVolt, 1),
            "upsTemperature": Self.fixed(27 + 3 * sin(t / 1800 + phase), 1),
            "mode": role.modeCode,
            "batRemainTime": Self.fixed(capacity * 75, 0),
            "loadVa1": Self.fixed(va, 0),
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
            "loadWatt1": "\(watts)",
            "batCapacity": Self.fixed(capacity, 0),
            "status": role == .onBattery || role == .fault ? "2" : "1",
        ]
        return names.map { ($0, values[$0] ?? "") }
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
    /// Base64url without padding.
    static func base64URL(_ text: String) -> String {
        Data(text.utf8).base64EncodedString()
            .replacing("+", with: "-").replacing("/", with: "_")
            .replacing("=", with: "")
    }

    /// A stable uuid-shaped string for `serial`.
    static func uuid(_ serial: Int) -> String {
        let hex = String(UInt64(truncatingIfNeeded: serial), radix: 16, width: 12)
        return "6a8e1f0b-2c3d-4e5f-8a9b-" + hex
    }
}
