import WPText
import WPRuntime

/// One UPS as listed by WinPower, with every value the API reports.
///
/// Values that were missing, empty or not a finite number are `nil` — never `0` — so the
/// exporter can omit them instead of exporting a fake reading.
public struct Device: Sendable, Equatable, Identifiable {
    /// The stable key: `assetDevice.id`.
    public var id: String { asset.id }
    /// Identity and inventory data (`assetDevice`).
    public var asset: AssetDevice
    /// Whether WinPower currently talks to the UPS (`connected`); `nil` when absent.
    public var connected: Bool?
    /// Live measurements and status codes (`realtime`).
    public var realtime: RealtimeReadings
    /// The ratings of the UPS (`config`).
    public var config: DeviceConfig
    /// The user settings of the UPS (`setting`).
    public var setting: DeviceSetting
    /// Which remote controls the UPS supports (`controlSupported`).
    public var controlSupported: ControlSupport
    /// `nil` when the member is absent or not an array.
    public var activeAlarms: ActiveAlarms?
    /// Numeric members of `realtime`, `config` and `setting` without a field of their own, in
    /// the order sent (at most `DeviceListDecoder/extraReadingLimit`).
    public var extraReadings: [ExtraReading] = []
    /// Numeric members left out of ``extraReadings``: over the limit, or with a name longer
    /// than `DeviceListDecoder/longestExtraKey` bytes.
    public var extraReadingsDropped = 0
    /// Text fields cut to `DeviceListDecoder/maxTextBytes` (alias, model, alarm texts, …).
    public var textsTruncated = 0
    /// The battery's installation day and expected life, from the configuration (not WinPower:
    /// the exporter sets it); `nil` when none is configured.
    public var battery: BatteryLife?

    /// Creates a device; an object left out has every value `nil`, as have `connected` and
    /// `activeAlarms`.
    public init(asset: AssetDevice, connected: Bool? = nil, realtime: RealtimeReadings = RealtimeReadings(),
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

    /// What the exporter's pages and messages call the UPS (the status pages, notifications,
    /// MQTT): its alias, else its model, else its id; a blank alias or model is none.
    package var displayName: String {
        for text in [asset.alias, asset.model] {
            if let text, !text.trimmingWhitespace().isEmpty { return text }
        }
        return id
    }

    /// The operating mode, or `nil` when `mode` is missing or a code WinPower is not known to
    /// send (the raw code stays in ``RealtimeReadings/mode``).
    public var operatingMode: OperatingMode? { realtime.mode.flatMap(OperatingMode.init(code:)) }
    /// `true` in battery mode (`mode` 4: an outage) only, `false` in another known mode (a
    /// battery test included), `nil` when the mode is missing or unknown.
    public var isOnBattery: Bool? { operatingMode.map { $0 == .battery } }
    /// `true` during a battery self-test (`mode` 5), `false` in another known mode.
    public var isBatteryTestRunning: Bool? { operatingMode.map { $0 == .batteryTest } }
    /// `true` on bypass (`mode` 2), `false` in another known mode.
    public var isOnBypass: Bool? { operatingMode.map { $0 == .bypass } }
    /// `true` when `status` is 2 (alarm) or alarms are active; `nil` when neither is known.
    public var hasAlarm: Bool? {
        if (activeAlarms?.count ?? 0) > 0 || realtime.status == 2 { return true }
        return realtime.status == nil ? nil : false
    }
    /// `true` when a fault code is reported or the UPS is in fault mode (`mode` 6); `false`
    /// when a connected device reports no fault code (`""`) and is not in fault mode; `nil`
    /// when unknown: the field is missing, or the device is disconnected (WinPower then sends
    /// every reading empty).
    public var hasFault: Bool? {
        if realtime.faultCode != nil || operatingMode == .fault { return true }
        return realtime.faultCodeReported && connected != false ? false : nil
    }
}

/// The `assetDevice` object: identity and inventory.
public struct AssetDevice: Sendable, Equatable {
    /// The device's uuid: the stable key. Never empty.
    public var id: String
    /// `1` for a UPS.
    public var deviceType: Int?
    /// `model`: the model as WinPower reports it (`ON-LINE`).
    public var model: String?
    /// The user-given name: not unique, may change, may hold any characters.
    public var alias: String?
    /// `protocolId`: WinPower's number for the protocol it talks to the UPS with.
    public var protocolId: Int?
    /// `connectType`: WinPower's code for how it is connected to the UPS.
    public var connectType: Int?
    /// `comPort`: the port WinPower reaches the UPS on (`COM3`).
    public var comPort: String?
    /// `baudRate`: the serial line's speed, in baud.
    public var baudRate: Int?
    /// `areaId`: the uuid of the WinPower area the device belongs to.
    public var areaId: String?
    /// `isActive`: whether the device is enabled in WinPower.
    public var isActive: Bool?
    /// `firmwareVersion`: the firmware version the UPS reports (`03.09`).
    public var firmwareVersion: String?
    /// As sent: ISO-8601 local time without zone, e.g. `2025-10-13T08:37:57.048192`.
    public var createTime: String?
    /// `warrantyStatus`: WinPower's warranty status code.
    public var warrantyStatus: Int?

    /// Creates the identity of the device `id`; what is left out is `nil`.
    public init(id: String, deviceType: Int? = nil, model: String? = nil, alias: String? = nil,
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
public struct ActiveAlarms: Sendable, Equatable {
    /// The number of entries in the array.
    public var count: Int
    /// The code of each entry that has one (a string or number entry, or an object's
    /// `alarmCode`/`code`/`eventCode` member; never a per-occurrence `id`/`alarmId`), in order;
    /// at most `DeviceListDecoder/alarmCodeLimit`.
    public var codes: [String]
    /// The entries that said anything (a code, name, message or id), in order, at most
    /// `DeviceListDecoder/alarmDetailLimit`; texts cut at 256 characters.
    public var alarms: [Alarm]

    /// Creates the alarms; without `alarms`, one per code, named by ``Alarm/knownNames`` where the
    /// code is known.
    public init(count: Int = 0, codes: [String] = [], alarms: [Alarm]? = nil) {
        self.count = count
        self.codes = codes
        self.alarms = alarms ?? codes.map { Alarm(code: $0) }
    }
}

/// The `controlSupported` object: which remote controls the UPS supports.
public struct ControlSupport: Sendable, Equatable {
    /// `supportQuickTest`: whether a quick battery test can be started remotely.
    public var supportQuickTest: Bool?
    /// `supportDeepTest`: whether a deep battery test can be started remotely.
    public var supportDeepTest: Bool?
    /// `supportTestDuration`: whether a battery test of a given duration can be started remotely.
    public var supportTestDuration: Bool?
    /// `supportShutdown`: whether the UPS can be shut down remotely.
    public var supportShutdown: Bool?

    /// Creates the supported controls; what is left out is `nil` (not reported).
    public init(supportQuickTest: Bool? = nil, supportDeepTest: Bool? = nil,
                supportTestDuration: Bool? = nil, supportShutdown: Bool? = nil) {
        self.supportQuickTest = supportQuickTest
        self.supportDeepTest = supportDeepTest
        self.supportTestDuration = supportTestDuration
        self.supportShutdown = supportShutdown
    }
}
