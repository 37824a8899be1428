import WPClient

/// What the collector does with readings WinPower sends that have no metric of their own
/// (`WPClient/Device/extraReadings`): passed through as `winpower_device_reading`, bounded.
///
/// The caps keep a misbehaving server from exploding the exposition: a device keeps its first
/// ``maxPerDevice`` readings in the order sent, and a server's devices (in device-id order) at
/// most ``maxPerServer`` together; what is left out is counted in
/// `winpower_exporter_readings_dropped_total`.
public struct ReadingsPolicy: Sendable, Equatable {
    /// Whether unknown numeric readings are exported at all (on by default).
    public var passthrough: Bool
    /// Readings kept per device (default 64; at most `DeviceListDecoder/extraReadingLimit`).
    public var maxPerDevice: Int
    /// Readings kept per WinPower server, all devices together (default 4,096).
    public var maxPerServer: Int

    /// Creates a policy; caps below zero count as zero, and `maxPerDevice` is at most
    /// `DeviceListDecoder/extraReadingLimit`.
    public init(passthrough: Bool = true, maxPerDevice: Int = 64, maxPerServer: Int = 4_096) {
        self.passthrough = passthrough
        self.maxPerDevice = max(0, min(maxPerDevice, DeviceListDecoder.extraReadingLimit))
        self.maxPerServer = max(0, maxPerServer)
    }

    /// Why readings were left out: the label of `winpower_exporter_readings_dropped_total`.
    enum DropReason: String, CaseIterable, Sendable {
        /// Over the per-device cap (the decoder's own limit included) or a name over
        /// ``DeviceListDecoder/longestExtraKey`` bytes.
        case device
        /// Over the per-server cap.
        case server
    }

    /// The readings of each device kept under the caps, and what was left out.
    ///
    /// - Parameter devices: one readout's devices.
    /// - Returns: per device id, the kept readings (distinct section and key, first kept);
    ///   the dropped counts by reason.
    func apply(to devices: [Device]) -> (kept: [String: [ExtraReading]], dropped: [DropReason: Int]) {
        guard passthrough else { return ([:], [:]) }
        var kept: [String: [ExtraReading]] = [:]
        var dropped: [DropReason: Int] = [:]
        var budget = maxPerServer
        // Only devices with something to pass through are ordered (most send nothing).
        let carrying = devices.filter { !$0.extraReadings.isEmpty || $0.extraReadingsDropped > 0 }
        for device in carrying.sorted(by: { $0.id < $1.id }) {
            var seen = Set<String>()
            let distinct = device.extraReadings.filter { seen.insert($0.section.rawValue + "\u{0}" + $0.key).inserted }
            // The device's cap first, then what is left of the server's.
            let candidates = distinct.prefix(maxPerDevice)
            let readings = Array(candidates.prefix(budget))
            budget -= readings.count
            let overDevice = device.extraReadingsDropped + distinct.count - candidates.count
            let overServer = candidates.count - readings.count
            if !readings.isEmpty { kept[device.id] = readings }
            if overDevice > 0 { dropped[.device, default: 0] += overDevice }
            if overServer > 0 { dropped[.server, default: 0] += overServer }
        }
        return (kept, dropped)
    }
}
