import WPText
import WPRuntime

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

    /// Members of an alarm object, each group most specific first. Only a *code* becomes a
    /// label; per-occurrence ids (`id`, `alarmId`, `eventId`) are shown, never labels: a code is
    /// bounded, an id is not.
    enum AlarmKey: String, CaseIterable, Sendable {
        case alarmCode, code, eventCode
        case alarmName, name, eventName, title
        case alarmMessage, message, msg, description, content, alarmDesc
        case alarmId, id, eventId

        /// The member's group (0 code, 1 name, 2 message, 3 id) and its rank in it (0 most specific).
        var groupAndRank: (group: Int, rank: Int) {
            switch self {
            case .alarmCode: (0, 0)
            case .code: (0, 1)
            case .eventCode: (0, 2)
            case .alarmName: (1, 0)
            case .name: (1, 1)
            case .eventName: (1, 2)
            case .title: (1, 3)
            case .alarmMessage: (2, 0)
            case .message: (2, 1)
            case .msg: (2, 2)
            case .description: (2, 3)
            case .content: (2, 4)
            case .alarmDesc: (2, 5)
            case .alarmId: (3, 0)
            case .id: (3, 1)
            case .eventId: (3, 2)
            }
        }
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
            // The closures capture only what they use (a copy of the whole decoder per device
            // would retain every key table).
            case .realtime:
                let stems = phaseStems
                try decodeSection(&scanner, keys: realtimeKeys, { try device.realtime.set($0, from: &$1) },
                                  unknown: { try Self.decodeUnknownRealtime($0, &$1, stems: stems, into: &device) })
            case .config:
                try decodeSection(&scanner, keys: configKeys, { try device.config.set($0, from: &$1) },
                                  unknown: { try Self.decodeExtra($0, section: .config, &$1, into: &device) })
            case .setting:
                try decodeSection(&scanner, keys: settingKeys, { try device.setting.set($0, from: &$1) },
                                  unknown: { try Self.decodeExtra($0, section: .setting, &$1, into: &device) })
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
        guard asset.id.utf8.count <= maxTextBytes else {
            return .failure(Problem(id: nil, reason: "assetDevice.id longer than \(maxTextBytes) bytes"))
        }
        device.asset = asset
        boundTexts(of: &device)
        return .success(device)
    }

    private func decodeAsset(_ scanner: inout JSONScanner) throws -> AssetDevice? {
        var asset = AssetDevice(id: "")
        try scanner.beginObject()
        var first = true
        while let key = try scanner.nextKey(first: &first) {
            switch try assetKeys.lookup(key, in: scanner) {
            case .id: asset.id = try scanner.readLooseString()?.trimmingSpacesAndTabs() ?? ""
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

    /// Walks an object whose known members are `keys`, the others going to `unknown` (or
    /// skipped); a non-object value is skipped (its fields stay `nil`).
    @inline(__always)  // specialised at each call site with its closures: the hot path of every device
    private func decodeSection<Key>(_ scanner: inout JSONScanner, keys: KeyTable<Key>,
                                    _ assign: (Key, inout JSONScanner) throws -> Void,
                                    unknown: ((JSONScanner.Key, inout JSONScanner) throws -> Void)? = nil) throws {
        guard try scanner.peekKind() == .object else {
            try scanner.skipValue()
            return
        }
        try scanner.beginObject()
        var first = true
        while let key = try scanner.nextKey(first: &first) {
            if let known = try keys.lookup(key, in: scanner) {
                try assign(known, &scanner)
            } else if let unknown {
                try unknown(key, &scanner)
            } else {
                try scanner.skipValue()
            }
        }
    }

    /// An unknown `realtime` member: a phase of a per-phase quantity (`inputVolt2`,
    /// `loadWatt3`, `inputCurrent1`, …) or an extra reading.
    private static func decodeUnknownRealtime(_ key: JSONScanner.Key, _ scanner: inout JSONScanner,
                                              stems phaseStems: KeyTable<PhaseReadings.Quantity>, into device: inout Device) throws {
        let range = key.range
        if !key.escaped, range.count > 1 {
            let digit = scanner.bytes[range.upperBound - 1]
            if (UInt8(ascii: "1")...UInt8(ascii: "3")).contains(digit),
               let quantity = phaseStems.lookup(scanner.bytes, range.lowerBound..<(range.upperBound - 1)) {
                device.realtime.phases[quantity, Int(digit - UInt8(ascii: "0"))] = try scanner.readLooseNumber()
                return
            }
        }
        try Self.decodeExtra(key, section: .realtime, &scanner, into: &device)
    }

    /// A member without a field: kept as an ``ExtraReading`` when its value is a number (or a
    /// string holding one), skipped otherwise; counted as dropped over the limits.
    private static func decodeExtra(_ key: JSONScanner.Key, section: ExtraReading.Section, _ scanner: inout JSONScanner,
                                    into device: inout Device) throws {
        guard let value = try scanner.readLooseNumber() else { return }
        guard key.range.count <= Self.longestExtraKey * 6, !key.range.isEmpty,
              device.extraReadings.count < Self.extraReadingLimit else {
            device.extraReadingsDropped += 1
            return
        }
        // Invalid UTF-8 becomes U+FFFD (three bytes for one): the length is checked decoded.
        let name = key.escaped ? try scanner.decodeEscapes(key.range)
                               : String(decoding: UnsafeBufferPointer(rebasing: scanner.bytes[key.range]), as: UTF8.self)
        guard name.utf8.count <= Self.longestExtraKey else {
            device.extraReadingsDropped += 1
            return
        }
        device.extraReadings.append(ExtraReading(section: section, key: name, value: value))
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
            var alarm: Alarm?
            switch try scanner.peekKind() {
            case .string, .number:
                if let code = try scanner.readLooseString()?.trimmingSpacesAndTabs(), !code.isEmpty { alarm = Alarm(code: code) }
            case .object:
                // The most specific member of each group (code, name, message, id) wins.
                var found: [(text: String, rank: Int)?] = [nil, nil, nil, nil]
                try decodeSection(&scanner, keys: alarmKeys) { key, scanner in
                    guard let text = try scanner.readLooseString()?.trimmingSpacesAndTabs(), !text.isEmpty else { return }
                    let (group, rank) = key.groupAndRank
                    if let kept = found[group], kept.rank < rank { return }
                    found[group] = (text, rank)
                }
                if found.contains(where: { $0 != nil }) {
                    alarm = Alarm(code: found[0]?.text, name: found[1].map { Self.cut($0.text) },
                                  message: found[2].map { Self.cut($0.text) }, id: found[3].map { Self.cut($0.text) })
                }
            default:
                try scanner.skipValue()
            }
            guard let alarm else { continue }
            if let code = alarm.code, alarms.codes.count < Self.alarmCodeLimit { alarms.codes.append(code) }
            if alarms.alarms.count < Self.alarmDetailLimit { alarms.alarms.append(alarm) }
        }
        return alarms
    }

    /// `text` cut to ``longestAlarmText`` characters.
    private static func cut(_ text: String) -> String {
        text.count <= longestAlarmText ? text : String(text.prefix(longestAlarmText)) + "…"
    }
}
