/// One UPS as listed by WinPower, with every value the API reports.
///
/// Values that were missing, empty or not a finite number are `nil` — never `0` — so the
/// exporter can omit them instead of exporting a fake reading.
package struct Device: Sendable, Equatable, Identifiable {
    /// The stable key: `assetDevice.id`.
    package var id: String { asset.id }
    /// Identity and inventory data (`assetDevice`).
    package var asset: AssetDevice
    /// Whether WinPower currently talks to the UPS (`connected`); `nil` when absent.
    package var connected: Bool?
    package var realtime: RealtimeReadings
    package var config: DeviceConfig
    package var setting: DeviceSetting
    package var controlSupported: ControlSupport
    /// `nil` when the member is absent or not an array.
    package var activeAlarms: ActiveAlarms?
    /// Numeric members of `realtime`, `config` and `setting` without a field of their own, in
    /// the order sent (at most ``DeviceListDecoder/extraReadingLimit``).
    package var extraReadings: [ExtraReading] = []
    /// Numeric members left out of ``extraReadings``: over the limit, or with a name longer
    /// than ``DeviceListDecoder/longestExtraKey`` bytes.
    package var extraReadingsDropped = 0
    /// Text fields cut to ``DeviceListDecoder/maxTextBytes`` (alias, model, alarm texts, …).
    package var textsTruncated = 0

    package init(asset: AssetDevice, connected: Bool? = nil, realtime: RealtimeReadings = RealtimeReadings(),
                config: DeviceConfig = DeviceConfig(), setting: DeviceSetting = DeviceSetting(),
                controlSupported: ControlSupport = ControlSupport(), activeAlarms: ActiveAlarms? = nil) {
        self.asset = asset
        self.connected = connected
        self.realtime = realtime
        self.config = config
        self.setting = setting
        self.controlSupported = controlSupported
        self.activeAlarms = activeAlarms
    }

    /// The operating mode, or `nil` when `mode` is missing or a code WinPower is not known to
    /// send (the raw code stays in ``RealtimeReadings/mode``).
    package var operatingMode: OperatingMode? { realtime.mode.flatMap(OperatingMode.init(code:)) }
    /// `true` in battery mode (`mode` 4: an outage) only, `false` in another known mode (a
    /// battery test included), `nil` when the mode is missing or unknown.
    package var isOnBattery: Bool? { operatingMode.map { $0 == .battery } }
    /// `true` during a battery self-test (`mode` 5), `false` in another known mode.
    package var isBatteryTestRunning: Bool? { operatingMode.map { $0 == .batteryTest } }
    /// `true` on bypass (`mode` 2), `false` in another known mode.
    package var isOnBypass: Bool? { operatingMode.map { $0 == .bypass } }
    /// `true` when `status` is 2 (alarm) or alarms are active; `nil` when neither is known.
    package var hasAlarm: Bool? {
        if (activeAlarms?.count ?? 0) > 0 || realtime.status == 2 { return true }
        return realtime.status == nil ? nil : false
    }
    /// `true` when a fault code is reported or the UPS is in fault mode (`mode` 6); `false`
    /// when a connected device reports no fault code (`""`) and is not in fault mode; `nil`
    /// when unknown: the field is missing, or the device is disconnected (WinPower then sends
    /// every reading empty).
    package var hasFault: Bool? {
        if realtime.faultCode != nil || operatingMode == .fault { return true }
        return realtime.faultCodeReported && connected != false ? false : nil
    }
}

/// The `assetDevice` object: identity and inventory.
package struct AssetDevice: Sendable, Equatable {
    /// The device's uuid: the stable key. Never empty.
    package var id: String
    /// `1` for a UPS.
    package var deviceType: Int?
    package var model: String?
    /// The user-given name: not unique, may change, may hold any characters.
    package var alias: String?
    package var protocolId: Int?
    package var connectType: Int?
    package var comPort: String?
    package var baudRate: Int?
    package var areaId: String?
    package var isActive: Bool?
    package var firmwareVersion: String?
    /// As sent: ISO-8601 local time without zone, e.g. `2025-10-13T08:37:57.048192`.
    package var createTime: String?
    package var warrantyStatus: Int?

    package init(id: String, deviceType: Int? = nil, model: String? = nil, alias: String? = nil,
                protocolId: Int? = nil, connectType: Int? = nil, comPort: String? = nil, baudRate: Int? = nil,
                areaId: String? = nil, isActive: Bool? = nil, firmwareVersion: String? = nil,
                createTime: String? = nil, warrantyStatus: Int? = nil) {
        self.id = id
        self.deviceType = deviceType
        self.model = model
        self.alias = alias
        self.protocolId = protocolId
        self.connectType = connectType
        self.comPort = comPort
        self.baudRate = baudRate
        self.areaId = areaId
        self.isActive = isActive
        self.firmwareVersion = firmwareVersion
        self.createTime = createTime
        self.warrantyStatus = warrantyStatus
    }
}

/// The `activeAlarms` array: how many alarms are active, their codes and what else they say.
package struct ActiveAlarms: Sendable, Equatable {
    /// The number of entries in the array.
    package var count: Int
    /// The code of each entry that has one (a string or number entry, or an object's
    /// `alarmCode`/`code`/`eventCode` member; never a per-occurrence `id`/`alarmId`), in order;
    /// at most ``DeviceListDecoder/alarmCodeLimit``.
    package var codes: [String]
    /// The entries that said anything (a code, name, message or id), in order, at most
    /// ``DeviceListDecoder/alarmDetailLimit``; texts cut at 256 characters.
    package var alarms: [Alarm]

    package init(count: Int = 0, codes: [String] = [], alarms: [Alarm]? = nil) {
        self.count = count
        self.codes = codes
        self.alarms = alarms ?? codes.map { Alarm(code: $0) }
    }
}

/// The `controlSupported` object: which remote controls the UPS supports.
package struct ControlSupport: Sendable, Equatable {
    package var supportQuickTest: Bool?
    package var supportDeepTest: Bool?
    package var supportTestDuration: Bool?
    package var supportShutdown: Bool?

    package init(supportQuickTest: Bool? = nil, supportDeepTest: Bool? = nil,
                supportTestDuration: Bool? = nil, supportShutdown: Bool? = nil) {
        self.supportQuickTest = supportQuickTest
        self.supportDeepTest = supportDeepTest
        self.supportTestDuration = supportTestDuration
        self.supportShutdown = supportShutdown
    }
}
