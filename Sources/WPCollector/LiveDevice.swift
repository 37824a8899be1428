import WPClient

/// Every series value of one device reading, extracted once when the reading arrives, so a
/// render (every cycle, failed ones included) reads flat arrays instead of whole devices.
struct LiveDevice: Sendable {
    var id: String
    /// `[device_id, device_name, device_type]`.
    var labels: [String]
    /// ``labels`` plus `model` and `firmware_version`.
    var infoLabels: [String]
    /// ``labels`` plus `fault_code`, while a fault code is reported.
    var faultLabels: [String]?
    /// One value per ``DeviceGauge/all`` entry, `nil` where the reading is missing.
    var values: [Double?]

    init(_ device: Device) {
        id = device.id
        let labels = [device.id, device.asset.alias ?? "", device.asset.deviceType.map(String.init) ?? ""]
        self.labels = labels
        infoLabels = labels + [device.asset.model ?? "", device.asset.firmwareVersion ?? ""]
        faultLabels = device.realtime.faultCode.map { labels + [$0] }
        values = DeviceGauge.all.map { $0.read(device) }
    }
}
