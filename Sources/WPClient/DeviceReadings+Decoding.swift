import WPText
import WPRuntime

/// Field assignment from the decoder's key enums, one switch per section.
extension RealtimeReadings {
    mutating func set(_ key: DeviceListDecoder.RealtimeKey, from scanner: inout JSONScanner) throws {
        switch key {
        case .inputVolt1: inputVolt1 = try scanner.readLooseNumber()
        case .outputVolt1: outputVolt1 = try scanner.readLooseNumber()
        case .outputCurrent1: outputCurrent1 = try scanner.readLooseNumber()
        case .inputFreq: inputFreq = try scanner.readLooseNumber()
        case .outputFreq: outputFreq = try scanner.readLooseNumber()
        case .loadPercent: loadPercent = try scanner.readLooseNumber()
        case .loadTotalWatt: loadTotalWatt = try scanner.readLooseNumber()
        case .loadWatt1: loadWatt1 = try scanner.readLooseNumber()
        case .loadTotalVa: loadTotalVa = try scanner.readLooseNumber()
        case .loadVa1: loadVa1 = try scanner.readLooseNumber()
        case .batCapacity: batCapacity = try scanner.readLooseNumber()
        case .batRemainTime: batRemainTime = try scanner.readLooseNumber()
        case .batVoltP: batVoltP = try scanner.readLooseNumber()
        case .upsTemperature: upsTemperature = try scanner.readLooseNumber()
        case .isCharging: isCharging = try scanner.readLooseInt()
        case .mode: mode = try scanner.readLooseInt()
        case .status: status = try scanner.readLooseInt()
        case .batteryStatus: batteryStatus = try scanner.readLooseInt()
        case .testStatus: testStatus = try scanner.readLooseInt()
        case .outputVoltageType: outputVoltageType = try scanner.readLooseInt()
        case .inputTransformerType: inputTransformerType = try scanner.readLooseInt()
        case .faultCode:
            let code = try scanner.readLooseString()?.trimmingSpacesAndTabs()
            faultCode = code?.isEmpty == false ? code : nil
            faultCodeReported = code != nil
        }
    }
}

extension DeviceConfig {
    mutating func set(_ key: DeviceListDecoder.ConfigKey, from scanner: inout JSONScanner) throws {
        let value = try scanner.readLooseNumber()
        switch key {
        case .inputPhaseNumber: inputPhaseNumber = value
        case .outputPhaseNumber: outputPhaseNumber = value
        case .ratingVa: ratingVa = value
        case .ratingVolt: ratingVolt = value
        case .ratingFreq: ratingFreq = value
        case .ratingBatVolt: ratingBatVolt = value
        case .ratingBatUnitNumber: ratingBatUnitNumber = value
        case .ratingBatVoltPerUnit: ratingBatVoltPerUnit = value
        case .upsModuleNumber: upsModuleNumber = value
        case .inputSourceNumber: inputSourceNumber = value
        }
    }
}

extension DeviceSetting {
    mutating func set(_ key: DeviceListDecoder.SettingKey, from scanner: inout JSONScanner) throws {
        let value = try scanner.readLooseNumber()
        switch key {
        case .enableAudible: enableAudible = value
        case .enableBypassWhenTurnOff: enableBypassWhenTurnOff = value
        case .batteryModuleNumber: batteryModuleNumber = value
        case .autoTestPeriod: autoTestPeriod = value
        case .enableAutoRestart: enableAutoRestart = value
        }
    }
}

extension ControlSupport {
    mutating func set(_ key: DeviceListDecoder.ControlKey, from scanner: inout JSONScanner) throws {
        let value = try scanner.readLooseBool()
        switch key {
        case .supportQuickTest: supportQuickTest = value
        case .supportDeepTest: supportDeepTest = value
        case .supportTestDuration: supportTestDuration = value
        case .supportShutdown: supportShutdown = value
        }
    }
}
