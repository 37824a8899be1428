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
    /// The device's rated apparent power (`ratingVa`), when WinPower reports it: it sets the
    /// plausibility bound of the reading (``EnergyConfiguration/maxWatts(ratingVa:)``).
    public var ratingVa: Double?
    /// The raw operating mode code (`realtime.mode`: 4 battery, 5 battery test, …), for the
    /// outage ledger; `nil` when missing.
    public var mode: Int?
    /// The battery runtime WinPower reports (`batRemainTime`, seconds), if any.
    public var runtimeSeconds: Double?
    /// The raw self-test status code (`testStatus`), if any.
    public var testStatus: Int?

    /// Creates a reading; what WinPower did not report is `nil`.
    public init(deviceID: String, watts: Double?, connected: Bool = true, ratingVa: Double? = nil,
                mode: Int? = nil, runtimeSeconds: Double? = nil, testStatus: Int? = nil) {
        self.deviceID = deviceID
        self.watts = watts
        self.connected = connected
        self.ratingVa = ratingVa
        self.mode = mode
        self.runtimeSeconds = runtimeSeconds
        self.testStatus = testStatus
    }

    /// The mode code the ledger may use: `nil` while disconnected (readings are stale then).
    public var usableMode: Int? { connected ? mode : nil }

    /// The power when this sample may be integrated: present, finite, ≥ 0 and connected.
    public var usableWatts: Double? {
        guard connected, let watts, watts.isFinite, watts >= 0 else { return nil }
        return watts
    }
}
