/// Settings of the energy integration, with the defaults of the `energy.*` configuration keys.
public struct EnergyConfiguration: Sendable, Equatable {
    /// The longest interval between two valid samples of a device that is still integrated
    /// (`energy.max_gap`, default 60 s). A longer interval is skipped and counted as a gap:
    /// nothing is guessed for it.
    public var maxGap: Duration

    public init(maxGap: Duration = .seconds(60)) {
        self.maxGap = maxGap
    }
}

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

/// The energy totals of one device.
public struct DeviceEnergy: Sendable, Equatable {
    /// Cumulative active energy in joules, unrounded.
    public var joules: Double
    /// Intervals longer than `energy.max_gap` that were skipped (since the state was created).
    public var gaps: Int

    public init(joules: Double = 0, gaps: Int = 0) {
        self.joules = joules
        self.gaps = gaps
    }

    /// The total in watt-hours (the previous exporter's `winpower_device_cumulative_energy`).
    public var wattHours: Double { joules / 3600 }
}
