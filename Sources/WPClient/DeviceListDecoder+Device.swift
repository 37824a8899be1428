/// Decoding of one device object, section by section.
extension DeviceListDecoder {
    enum DeviceKey: String, CaseIterable, Sendable {
        case assetDevice, realtime, config, setting, activeAlarms, controlSupported, connected
    }

    enum AssetKey: String, CaseIterable, Sendable {
        case id, deviceType, model, alias, protocolId, connectType, comPort, baudRate, areaId, isActive
        case firmwareVersion, createTime, warrantyStatus
    }

    enum RealtimeKey: String, CaseIterable, Sendable {
        case inputVolt1, outputVolt1, outputCurrent1, inputFreq, outputFreq, loadPercent, loadTotalWatt
        case loadWatt1, loadTotalVa, loadVa1, batCapacity, batRemainTime, batVoltP, upsTemperature
        case isCharging, mode, status, batteryStatus, testStatus, outputVoltageType, inputTransformerType
        case faultCode
    }

    enum ConfigKey: String, CaseIterable, Sendable {
        case inputPhaseNumber, outputPhaseNumber, ratingVa, ratingVolt, ratingFreq, ratingBatVolt
        case ratingBatUnitNumber, ratingBatVoltPerUnit, upsModuleNumber, inputSourceNumber
    }

    enum SettingKey: String, CaseIterable, Sendable {
        case enableAudible, enableBypassWhenTurnOff, batteryModuleNumber, autoTestPeriod, enableAutoRestart
    }

    enum ControlKey: String, CaseIterable, Sendable {
        case supportQuickTest, supportDeepTest, supportTestDuration, supportShutdown
    }

    /// Members of an alarm object that may carry its code, most specific first.
    /// Members of an alarm object that name its *code*, most specific first. Per-occurrence
    /// ids (`id`, `alarmId`) are deliberately absent: a code is bounded, an id is not.
    enum AlarmCodeKey: String, CaseIterable, Sendable {
        case alarmCode, code, eventCode
    }

    struct Problem: Error {
        var id: String?
        var reason: String
    }

    /// Decodes one element of `data`; a semantic problem yields `.failure`, a syntax error throws.
    func decodeDevice(_ scanner: inout JSONScanner) throws -> Result<Device, Problem> {
        let kind = try scanner.peekKind()
        guard kind == .object else {
            try scanner.skipValue()
            return .failure(Problem(reason: "not an object (\(kind))"))
        }
        var asset: AssetDevice?
        var assetProblem = "assetDevice missing"
        var device = Device(asset: AssetDevice(id: ""))
        try scanner.beginObject()
        var first = true
        while let key = try scanner.nextKey(first: &first) {
            switch try deviceKeys.lookup(key, in: scanner) {
            case .assetDevice:
                if try scanner.peekKind() == .object {
                    asset = try decodeAsset(&scanner)
                    assetProblem = "assetDevice.id missing or empty"
                } else {
                    assetProblem = "assetDevice is not an object"
                    try scanner.skipValue()
                }
            case .realtime: try decodeSection(&scanner) { try device.realtime.set($0, from: &$1) }
            case .config: try decodeSection(&scanner, keys: configKeys) { try device.config.set($0, from: &$1) }
            case .setting: try decodeSection(&scanner, keys: settingKeys) { try device.setting.set($0, from: &$1) }
            case .controlSupported:
                try decodeSection(&scanner, keys: controlKeys) { try device.controlSupported.set($0, from: &$1) }
            case .activeAlarms: device.activeAlarms = try decodeAlarms(&scanner)
            case .connected: device.connected = try scanner.readLooseBool()
            case nil: try scanner.skipValue()
            }
        }
        guard let asset, !asset.id.isEmpty else {
            return .failure(Problem(id: nil, reason: assetProblem))
        }
        device.asset = asset
        return .success(device)
    }

    private func decodeAsset(_ scanner: inout JSONScanner) throws -> AssetDevice? {
        var asset = AssetDevice(id: "")
        try scanner.beginObject()
        var first = true
        while let key = try scanner.nextKey(first: &first) {
            switch try assetKeys.lookup(key, in: scanner) {
            case .id: asset.id = try scanner.readLooseString()?.trimmingASCIISpaces() ?? ""
            case .deviceType: asset.deviceType = try scanner.readLooseInt()
            case .model: asset.model = try scanner.readLooseString()
            case .alias: asset.alias = try scanner.readLooseString()
            case .protocolId: asset.protocolId = try scanner.readLooseInt()
            case .connectType: asset.connectType = try scanner.readLooseInt()
            case .comPort: asset.comPort = try scanner.readLooseString()
            case .baudRate: asset.baudRate = try scanner.readLooseInt()
            case .areaId: asset.areaId = try scanner.readLooseString()
            case .isActive: asset.isActive = try scanner.readLooseBool()
            case .firmwareVersion: asset.firmwareVersion = try scanner.readLooseString()
            case .createTime: asset.createTime = try scanner.readLooseString()
            case .warrantyStatus: asset.warrantyStatus = try scanner.readLooseInt()
            case nil: try scanner.skipValue()
            }
        }
        return asset
    }

    private func decodeSection(_ scanner: inout JSONScanner,
                               _ assign: (RealtimeKey, inout JSONScanner) throws -> Void) throws {
        try decodeSection(&scanner, keys: realtimeKeys, assign)
    }

    /// Walks an object whose known members are `keys`; a non-object value is skipped (its
    /// fields stay `nil`).
    private func decodeSection<Key>(_ scanner: inout JSONScanner, keys: KeyTable<Key>,
                                    _ assign: (Key, inout JSONScanner) throws -> Void) throws {
        guard try scanner.peekKind() == .object else {
            try scanner.skipValue()
            return
        }
        try scanner.beginObject()
        var first = true
        while let key = try scanner.nextKey(first: &first) {
            if let known = try keys.lookup(key, in: scanner) {
                try assign(known, &scanner)
            } else {
                try scanner.skipValue()
            }
        }
    }

    /// The `activeAlarms` array; `nil` when it is not an array.
    private func decodeAlarms(_ scanner: inout JSONScanner) throws -> ActiveAlarms? {
        guard try scanner.peekKind() == .array else {
            try scanner.skipValue()
            return nil
        }
        var alarms = ActiveAlarms()
        try scanner.beginArray()
        var first = true
        while try scanner.nextElement(first: &first) {
            alarms.count += 1
            switch try scanner.peekKind() {
            case .string, .number:
                if let code = try scanner.readLooseString(), !code.isEmpty { alarms.codes.append(code) }
            case .object:
                var found: [AlarmCodeKey: String] = [:]
                try decodeSection(&scanner, keys: alarmKeys) { key, scanner in
                    if let code = try scanner.readLooseString(), !code.isEmpty { found[key] = code }
                }
                if let code = AlarmCodeKey.allCases.lazy.compactMap({ found[$0] }).first { alarms.codes.append(code) }
            default:
                try scanner.skipValue()
            }
        }
        return alarms
    }
}
