import WPText
import WPRuntime
import WPLogging

/// A scripted mains failure: device `device` runs on battery (`mode` 4, role ``SimulatedDevice/Role/onBattery``)
/// from `start` for `length` seconds of simulated time, then returns to its own role. With another
/// `role` the window scripts that instead (``SimulatedDevice/Role/batteryTest``: a battery self-test).
///
/// Written `[DEVICE:]START+LENGTH[/ROLE]` (seconds; DEVICE is the 0-based device index, default 0;
/// ROLE a ``SimulatedDevice/Role`` name, default `onBattery`), several comma-separated:
/// `2+4,10+4,1:18+8` puts device 0 on battery during [2 s, 6 s) and [10 s, 14 s) and device 1
/// during [18 s, 26 s) after the simulator started (`wpexporter simulate --outage-schedule`);
/// `3:20+15/batteryTest` runs a battery self-test on device 3, `0:0+600/disconnected` disconnects
/// device 0 for its first ten minutes.
///
/// `~RUNTIME` after the length gives the battery the runtime (seconds, from full charge at the
/// device's load) it delivers in that window: its charge falls from 100 % at the window's start
/// by 100 % per RUNTIME seconds, while WinPower's predicted runtime stays the nominal one
/// (`batRemainTime` = 75 s per percent). `0:10+60~600,0:100+60~400` scripts a battery that
/// delivers two thirds of its first runtime at the second outage (docs/battery.md).
public struct OutageWindow: Sendable, Equatable, CustomStringConvertible {
    /// The 0-based index of the device.
    public var device: Int
    /// Seconds of simulated time when mains fails.
    public var start: Double
    /// Seconds on battery.
    public var length: Double
    /// The device's role during the window.
    public var role: SimulatedDevice.Role
    /// The runtime from full charge the battery delivers in the window (`~RUNTIME`), seconds;
    /// `nil`: the simulator's default charge curve.
    public var runtime: Double?

    /// Creates the window of device `device` from `start` for `length` seconds; by default an
    /// outage.
    public init(device: Int = 0, start: Double, length: Double, role: SimulatedDevice.Role = .onBattery, runtime: Double? = nil) {
        self.device = device
        self.start = start
        self.length = length
        self.role = role
        self.runtime = runtime
    }

    /// Whether `t` (seconds of simulated time) falls in the window.
    public func contains(_ t: Double) -> Bool { t >= start && t < start + length }

    /// `DEVICE:START+LENGTH`, followed by `/ROLE` when it is not an outage (as ``parseList(_:)``
    /// reads it).
    public var description: String {
        "\(device):\(start)+\(length)" + (runtime.map { "~\($0)" } ?? "") + (role == .onBattery ? "" : "/\(role.rawValue)")
    }

    /// Parses a comma-separated list of windows.
    ///
    /// - Throws: ``SimulatorError/badOutageSchedule(_:)`` naming the bad entry.
    public static func parseList(_ text: String) throws -> [OutageWindow] {
        var windows: [OutageWindow] = []
        for entry in text.split(separator: ",").map({ $0.trimmingBlanks() }) where !entry.isEmpty {
            var rest = Substring(entry)
            var role = SimulatedDevice.Role.onBattery
            if let slash = rest.firstIndex(of: "/") {
                guard let named = SimulatedDevice.Role(rawValue: String(rest[rest.index(after: slash)...])) else {
                    throw SimulatorError.badOutageSchedule(entry)
                }
                role = named
                rest = rest[..<slash]
            }
            var device = 0
            if let colon = rest.firstIndex(of: ":") {
                guard let index = Int(rest[..<colon]), (0...10_000).contains(index) else {
                    throw SimulatorError.badOutageSchedule(entry)
                }
                device = index
                rest = rest[rest.index(after: colon)...]
            }
            var runtime: Double?
            if let tilde = rest.firstIndex(of: "~") {
                guard let seconds = Double(rest[rest.index(after: tilde)...]), seconds.isFinite, seconds > 0 else {
                    throw SimulatorError.badOutageSchedule(entry)
                }
                runtime = seconds
                rest = rest[..<tilde]
            }
            let parts = rest.split(separator: "+", omittingEmptySubsequences: false)
            guard parts.count == 2, let start = Double(parts[0]), let length = Double(parts[1]),
                  start.isFinite, length.isFinite, start >= 0, length > 0, start + length < 1e9 else {
                throw SimulatorError.badOutageSchedule(entry)
            }
            windows.append(OutageWindow(device: device, start: start, length: length, role: role, runtime: runtime))
        }
        return windows
    }
}
