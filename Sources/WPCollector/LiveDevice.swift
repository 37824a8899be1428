import WPClient

/// Every series value of one device reading, extracted once when the reading arrives, so a
/// render (every cycle, failed ones included) reads flat arrays instead of whole devices.
struct LiveDevice: Sendable {
    var id: String
    /// `[device_id, device_name, device_type]` and the static device labels' values.
    var labels: [String]
    /// ``labels`` plus `model` and `firmware_version`.
    var infoLabels: [String]
    /// ``labels`` plus `fault_code`, while a fault code is reported.
    var faultLabels: [String]?
    /// One value per ``DeviceGauge/all`` entry, `nil` where the reading is missing.
    var values: [Double?]
    /// The known operating mode, `nil` when the code is missing or unknown.
    var mode: OperatingMode?
    /// The distinct active alarm codes exported as labels (at most ``AlarmSeries/limit``).
    var alarmCodes: [String]
    /// Distinct active alarm codes over the limit (or unusable as a label): counted, not
    /// exported; `nil` when the device sent no `activeAlarms`.
    var alarmCodesDropped: Int?
    /// Per-phase values of a multi-phase UPS, one entry per ``DevicePhaseGauge/all`` family
    /// (empty for a single-phase one): the phases sent, 1 to 3.
    var phaseValues: [[(phase: Int, value: Double)]] = []
    /// Input and output phase counts from `config`, for a multi-phase UPS only.
    var phaseCounts: (input: Double?, output: Double?) = (nil, nil)
    /// Readings without a metric of their own, under the caps (``ReadingsPolicy``).
    var readings: [ExtraReading]
    /// The active alarms' details, for `/health`.
    var alarms: [Alarm]

    init(_ device: Device, readings: [ExtraReading] = [], staticLabels: [String] = []) {
        id = device.id
        let labels = [device.id, device.asset.alias ?? "", device.asset.deviceType.map(String.init) ?? ""] + staticLabels
        self.labels = labels
        infoLabels = labels + [device.asset.model ?? "", device.asset.firmwareVersion ?? ""]
        faultLabels = device.realtime.faultCode.map { labels + [$0] }
        values = DeviceGauge.all.map { $0.read(device) }
        mode = device.operatingMode
        let alarms = AlarmSeries.bounded(device.activeAlarms?.codes ?? [])
        alarmCodes = alarms.kept
        alarmCodesDropped = device.activeAlarms == nil ? nil : alarms.dropped
        self.alarms = device.activeAlarms?.alarms ?? []
        self.readings = readings
        let input = DevicePhaseGauge.isMultiPhase(device, side: .input)
        let output = DevicePhaseGauge.isMultiPhase(device, side: .output)
        if input || output {
            phaseValues = DevicePhaseGauge.all.map { gauge in
                guard gauge.side == .input ? input : output else { return [] }
                return PhaseReadings.phases.compactMap { phase in device.realtime.phase(gauge.quantity, phase).map { (phase, $0) } }
            }
            phaseCounts = (input ? device.config.inputPhaseNumber : nil, output ? device.config.outputPhaseNumber : nil)
        }
    }
}
