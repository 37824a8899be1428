package import Foundation
package import WPClient

extension Device {
    /// A device for tests: line mode, connected, the given power; every other field at a
    /// realistic value from the captured sample. Pass `watts: nil` for an absent reading.
    package static func make(id: String = "e156e6cb-41cb-4b35-b0dd-869929186a5c", alias: String? = "C3K",
                            connected: Bool? = true, watts: Double? = 195, mode: Int? = 3, status: Int? = 1,
                            faultCode: String? = nil, alarmCodes: [String] = []) -> Device {
        var realtime = RealtimeReadings()
        realtime.inputVolt1 = 236.8
        realtime.outputVolt1 = 220.1
        realtime.outputCurrent1 = 1.1
        realtime.inputFreq = 49.9
        realtime.outputFreq = 49.9
        realtime.loadPercent = 6
        realtime.loadTotalWatt = watts
        realtime.loadWatt1 = watts
        realtime.loadTotalVa = 198
        realtime.loadVa1 = 198
        realtime.batCapacity = 90
        realtime.batRemainTime = 6723
        realtime.batVoltP = 81.4
        realtime.upsTemperature = 27
        realtime.isCharging = 1
        realtime.mode = mode
        realtime.status = status
        realtime.batteryStatus = 2
        realtime.testStatus = 1
        realtime.outputVoltageType = 0
        realtime.inputTransformerType = 0
        realtime.faultCode = faultCode
        realtime.faultCodeReported = true
        var config = DeviceConfig()
        config.ratingVa = 3000
        config.ratingVolt = 220
        config.ratingFreq = 50
        config.ratingBatVolt = 72
        return Device(
            asset: AssetDevice(id: id, deviceType: 1, model: "ON-LINE", alias: alias, protocolId: 13, connectType: 1,
                               comPort: "COM3", baudRate: 2400, areaId: "00000000-0000-0000-0000-000000000000",
                               isActive: true, firmwareVersion: "03.09", createTime: "2025-10-13T08:37:57.048192",
                               warrantyStatus: 0),
            connected: connected, realtime: realtime, config: config,
            controlSupported: ControlSupport(supportQuickTest: true, supportDeepTest: true, supportTestDuration: true,
                                             supportShutdown: true),
            activeAlarms: ActiveAlarms(count: alarmCodes.count, codes: alarmCodes))
    }
}

extension DeviceReadout {
    /// A complete readout of `devices` for tests.
    package static func make(devices: [Device] = [.make()], dropped: [DroppedDevice] = [],
                            calls: [APICall] = [APICall(endpoint: .deviceList, duration: .milliseconds(12), status: 200)],
                            tokenExpiry: Date? = Date(timeIntervalSince1970: 1_760_367_613),
                            lastLogin: Date? = Date(timeIntervalSince1970: 1_760_365_813)) -> DeviceReadout {
        DeviceReadout(devices: devices, dropped: dropped, reportedTotal: devices.count + dropped.count, pages: 1,
                      isComplete: true, calls: calls, tokenExpiry: tokenExpiry, lastLogin: lastLogin)
    }
}
