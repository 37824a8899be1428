import WPLogging

/// One simulated UPS: a stable identity, a role, and readings derived from a ``PowerCurve``.
public struct SimulatedDevice: Sendable, Equatable {
    /// What the device is doing, which shapes its readings.
    public enum Role: String, Sendable, Equatable {
        /// On mains, no alarm.
        case normal
        /// On battery (`mode` 4) with an active "utility failure" alarm.
        case onBattery
        /// `connected: false` and every realtime value an empty string.
        case disconnected
        /// On mains with an active alarm and a fault code.
        case fault
    }

    /// 0-based position in the simulator's list.
    public var index: Int
    /// The stable uuid.
    public var id: String
    public var alias: String
    public var role: Role
    /// Drives `loadTotalWatt` (and the values derived from it).
    public var curve: PowerCurve

    /// Aliases cycled through: some repeat, some hold quotes, backslashes or non-ASCII.
    static let aliases = ["C3K", "Server room \"A\"", "C3K", "Rack\\B-2", "机房 UPS 3", "Büro-USV", "C3K"]

    /// The device number `index` of every simulator: the same values in every run.
    public init(index: Int) {
        self.index = index
        id = "5e1a7a0c-" + String(index % 0x10000, radix: 16, width: 4) + "-4b35-b0dd-" + String(index, radix: 16, width: 12)
        alias = Self.aliases[index % Self.aliases.count]
        if index % 7 == 2 {
            role = .disconnected
        } else if index % 5 == 1 {
            role = .onBattery
        } else if index % 5 == 3 {
            role = .fault
        } else {
            role = .normal
        }
        curve = PowerCurve(deviceIndex: index)
    }

    /// The fault code reported (empty when none).
    public var faultCode: String { role == .fault ? "0B" : "" }

    /// Codes of the active alarms.
    public var alarmCodes: [String] {
        switch role {
        case .onBattery: ["0x0011"]
        case .fault: ["0x0107"]
        case .normal, .disconnected: []
        }
    }
}
