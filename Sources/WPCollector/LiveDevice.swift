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
    /// What only some devices have (phases beyond the first, passed-through readings, alarm
    /// texts): kept beside the ``LiveDevice`` (``CollectorState/Entry/extras``), not in it, so
    /// a render's loops over every device copy no more than before these existed.
    final class Extras: Sendable {
        /// Per-phase values of a multi-phase UPS, one entry per ``DevicePhaseGauge/all`` family
        /// (empty for a single-phase one): the phases sent, 1 to 3.
        let phaseValues: [[(phase: Int, value: Double)]]
        /// Input and output phase counts from `config`, for a multi-phase UPS only.
        let phaseCounts: (input: Double?, output: Double?)
        /// Readings without a metric of their own, under the caps (``ReadingsPolicy``).
        let readings: [ExtraReading]
        /// The active alarms' details, for `/health`.
        let alarms: [Alarm]
        /// The configured battery's installation and replace-by days (Unix seconds of their
        /// start, UTC), when its installation day is configured.
        let battery: (installed: Double, replaceBy: Double)?

        init(phaseValues: [[(phase: Int, value: Double)]], phaseCounts: (input: Double?, output: Double?),
             readings: [ExtraReading], alarms: [Alarm], battery: (installed: Double, replaceBy: Double)? = nil) {
            self.phaseValues = phaseValues
            self.phaseCounts = phaseCounts
            self.readings = readings
            self.alarms = alarms
            self.battery = battery
        }
    }

    init(_ device: Device, staticLabels: [String] = []) {
        id = device.id
        var labels = [device.id, device.asset.alias ?? "", device.asset.deviceType.map(String.init) ?? ""]
        if !staticLabels.isEmpty { labels += staticLabels }
        self.labels = labels
        infoLabels = labels + [device.asset.model ?? "", device.asset.firmwareVersion ?? ""]
        faultLabels = device.realtime.faultCode.map { labels + [$0] }
        values = DeviceGauge.all.map { $0.read(device) }
        mode = device.operatingMode
        let alarms = AlarmSeries.bounded(device.activeAlarms?.codes ?? [])
        alarmCodes = alarms.kept
        alarmCodesDropped = device.activeAlarms == nil ? nil : alarms.dropped
    }
}

extension LiveDevice.Extras {
    /// What `device` has beyond the seed's single-phase readings, with `readings` (its
    /// passed-through readings under the caps); `nil` when nothing.
    static func of(_ device: Device, readings: [ExtraReading]) -> LiveDevice.Extras? {
        let details = device.activeAlarms?.alarms ?? []
        let input = DevicePhaseGauge.isMultiPhase(device, side: .input)
        let output = DevicePhaseGauge.isMultiPhase(device, side: .output)
        var battery: (installed: Double, replaceBy: Double)?
        if let installed = device.battery?.installedDay, let replaceBy = device.battery?.replaceByDay {
            battery = (Double(installed) * 86_400, Double(replaceBy) * 86_400)
        }
        guard input || output || !readings.isEmpty || !details.isEmpty || battery != nil else { return nil }
        var phaseValues: [[(phase: Int, value: Double)]] = []
        if input || output {
            phaseValues = DevicePhaseGauge.all.map { gauge in
                guard gauge.side == .input ? input : output else { return [] }
                return PhaseReadings.phases.compactMap { phase in device.realtime.phase(gauge.quantity, phase).map { (phase, $0) } }
            }
        }
        return LiveDevice.Extras(phaseValues: phaseValues,
                                 phaseCounts: (input ? device.config.inputPhaseNumber : nil,
                                               output ? device.config.outputPhaseNumber : nil),
                                 readings: readings, alarms: details, battery: battery)
    }
}
