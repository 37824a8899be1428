/// One power reading of one device, as the collector maps it from the WinPower model.
///
/// ```swift
/// EnergySample(deviceID: "e156e6cb", watts: 412.5, connected: true)
/// ```
public struct EnergySample: Sendable, Equatable {
    /// The device's stable id (the series identity).
    public var deviceID: String
    /// Active output power in watts (`loadTotalWatt`); `nil` when absent or unparsable.
    public var watts: Double?
    /// Whether WinPower currently talks to the device.
    public var connected: Bool

    public init(deviceID: String, watts: Double?, connected: Bool = true) {
        self.deviceID = deviceID
        self.watts = watts
        self.connected = connected
    }

    /// The power when this sample may be integrated: present, finite, ≥ 0 and connected.
    public var usableWatts: Double? {
        guard connected, let watts, watts.isFinite, watts >= 0 else { return nil }
        return watts
    }
}
