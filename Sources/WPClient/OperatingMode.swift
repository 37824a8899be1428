/// A UPS operating mode, as WinPower G2 reports it in `realtime.mode` (the server's WorkMode
/// enum; ../docs/winpower-client.md lists the codes and which facts are verified).
///
/// Unknown codes have no case: ``init(code:)`` returns `nil` for them, and callers keep the raw
/// code rather than guess.
public enum OperatingMode: Int, Sendable, CaseIterable, Hashable {
    /// `0`: powering on.
    case powerOn = 0
    /// `1`: standby (output off).
    case standby = 1
    /// `2`: bypass: the load is fed from mains without the inverter's protection.
    case bypass = 2
    /// `3`: line: normal operation on mains.
    case line = 3
    /// `4`: battery: mains has failed and the battery carries the load (an outage).
    case battery = 4
    /// `5`: battery test: on battery on purpose during a self-test, not an outage.
    case batteryTest = 5
    /// `6`: fault.
    case fault = 6

    /// The mode of a raw `mode` code, or `nil` for a code WinPower is not known to send.
    public init?(code: Int) {
        self.init(rawValue: code)
    }

    /// The raw code WinPower sends.
    public var code: Int { rawValue }

    /// A short snake_case name, usable as a Prometheus label value: `power_on`, `standby`,
    /// `bypass`, `line`, `battery`, `battery_test`, `fault`.
    public var label: String {
        switch self {
        case .powerOn: "power_on"
        case .standby: "standby"
        case .bypass: "bypass"
        case .line: "line"
        case .battery: "battery"
        case .batteryTest: "battery_test"
        case .fault: "fault"
        }
    }

    /// The name a person reads: `power on`, `standby`, `bypass`, `line`, `battery`,
    /// `battery test`, `fault`.
    public var displayName: String {
        String(label.map { $0 == "_" ? " " : $0 })
    }
}
