import WPLogging

/// One simulated UPS: a stable identity, a role, and readings derived from a ``PowerCurve``.
public struct SimulatedDevice: Sendable, Equatable {
    /// What the device is doing, which shapes its readings.
    public enum Role: String, Sendable, Equatable, CaseIterable {
        /// On mains, no alarm.
        case normal
        /// On battery (`mode` 4) with an active "utility failure" alarm.
        case onBattery
        /// `connected: false` and every realtime value an empty string.
        case disconnected
        /// Fault mode (`mode` 6) with an active alarm and a fault code.
        case fault
        /// A battery self-test (`mode` 5): on battery on purpose, mains present.
        case batteryTest
        /// Bypass (`mode` 2): the load on mains without the inverter.
        case bypass
        /// Standby (`mode` 1).
        case standby
        /// Powering on (`mode` 0).
        case powerOn

        /// The `realtime.mode` code WinPower sends in this role (disconnected devices send `""`).
        public var modeCode: String {
            switch self {
            case .normal: "3"
            case .onBattery: "4"
            case .disconnected: ""
            case .fault: "6"
            case .batteryTest: "5"
            case .bypass: "2"
            case .standby: "1"
            case .powerOn: "0"
            }
        }
    }

    /// 0-based position in the simulator's list.
    public var index: Int
    /// The stable uuid.
    public var id: String
    /// The user-given name WinPower shows (`assetDevice.alias`).
    public var alias: String
    /// The model WinPower shows (`assetDevice.model`).
    public var model = "ON-LINE"
    /// What the device is doing; an ``OutageWindow`` of the schedule overrides it (unless the
    /// device is disconnected).
    public var role: Role
    /// The scripted window's battery (``OutageWindow/runtime``): when it started, and the runtime
    /// from full charge it delivers; `nil`: the default charge curve.
    public var battery: ScriptedBattery?

    /// A scripted window's battery: when the window started and the runtime from full charge it
    /// delivers, seconds.
    public struct ScriptedBattery: Sendable, Equatable {
        /// Seconds of simulated time when the window started (the charge is full then).
        public var start: Double
        /// Seconds the battery runs from full charge.
        public var runtime: Double

        /// A battery full at `start` that runs `runtime` seconds.
        public init(start: Double, runtime: Double) {
            self.start = start
            self.runtime = runtime
        }
    }
    /// Drives `loadTotalWatt` (and the values derived from it).
    public var curve: PowerCurve
    /// A three-phase UPS: per-phase keys for phases 1 to 3, phase counts of 3.
    public var threePhase = false
    /// Unknown numeric `realtime` members sent (``WinPowerSimulator/Configuration/extraReadings``).
    public var extraReadings = 0
    /// The WinPower area the device is in (``rootArea`` by default).
    public var areaId = SimulatedDevice.rootArea
    /// Alarms in several shapes (``WinPowerSimulator/Configuration/alarmShapes``).
    public var alarmShapes = false

    /// The root area every WinPower server has.
    public static let rootArea = "00000000-0000-0000-0000-000000000000"

    /// The id of simulated area `number` (0: the root).
    public static func areaId(_ number: Int) -> String {
        number == 0 ? rootArea : "a0000000-0000-4000-8000-" + String(number, radix: 16, width: 12)
    }

    /// Aliases cycled through: some repeat, some hold quotes, backslashes or non-ASCII.
    static let aliases = ["C3K", "Server room \"A\"", "C3K", "Rack\\B-2", "机房 UPS 3", "Büro-USV", "C3K"]

    /// The device number `index` of every simulator: the same values in every run.
    public init(index: Int) {
        self.index = index
        id = "5e1a7a0c-" + String(index % 0x10000, radix: 16, width: 4) + "-4b35-b0dd-" + String(index, radix: 16, width: 12)
        alias = Self.aliases[index % Self.aliases.count]
        role = Self.role(index: index)
        curve = PowerCurve(deviceIndex: index)
    }

    /// The role of device `index`: devices 0–10 show every role (0 normal, 1 on battery,
    /// 2 disconnected, 3 fault, 4 battery test, 5 bypass, 7 powering on, 10 standby), and the
    /// pattern repeats irregularly after.
    static func role(index: Int) -> Role {
        if index % 7 == 2 { return .disconnected }
        if index % 5 == 1 { return .onBattery }
        if index % 5 == 3 { return .fault }
        switch (index % 7, index % 5) {
        case (4, _): return .batteryTest
        case (5, _): return .bypass
        case (0, 2): return .powerOn
        case (3, _): return .standby
        default: return .normal
        }
    }

    /// The fault code reported (empty when none).
    public var faultCode: String { role == .fault ? "0B" : "" }

    /// Codes of the active alarms.
    public var alarmCodes: [String] {
        switch role {
        case .onBattery: ["0x0011"]
        case .fault: ["0x0107"]
        case .batteryTest where alarmShapes: ["501", "0x0201"]
        case .normal, .disconnected, .batteryTest, .bypass, .standby, .powerOn: []
        }
    }
}
