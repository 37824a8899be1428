import WPClient

/// One per-phase gauge family of a multi-phase UPS: `phase` label `1`–`3`.
///
/// Only devices with more than one phase on the family's side get series (``isMultiPhase(_:side:)``),
/// so a single-phase fleet's exposition is exactly what it was before these families existed;
/// phase 1 of a multi-phase UPS is in both its seed family (`winpower_device_input_voltage`, …)
/// and here, so per-phase queries need one family.
struct DevicePhaseGauge: Sendable {
    enum Side: Sendable { case input, output }

    let name: String
    let help: String
    let unit: String?
    let quantity: PhaseReadings.Quantity
    let side: Side

    /// The `phase` label values.
    static let phaseLabels = ["1", "2", "3"]

    static let all: [DevicePhaseGauge] = [
        DevicePhaseGauge(name: "winpower_device_phase_input_voltage_volts", help: "Input voltage per phase in volts (multi-phase UPSs).",
                         unit: "volts", quantity: .inputVolt, side: .input),
        DevicePhaseGauge(name: "winpower_device_phase_input_current_amperes", help: "Input current per phase in amperes (multi-phase UPSs).",
                         unit: "amperes", quantity: .inputCurrent, side: .input),
        DevicePhaseGauge(name: "winpower_device_phase_output_voltage_volts", help: "Output voltage per phase in volts (multi-phase UPSs).",
                         unit: "volts", quantity: .outputVolt, side: .output),
        DevicePhaseGauge(name: "winpower_device_phase_output_current_amperes",
                         help: "Output current per phase in amperes (multi-phase UPSs).",
                         unit: "amperes", quantity: .outputCurrent, side: .output),
        DevicePhaseGauge(name: "winpower_device_phase_load_watts", help: "Active output power per phase in watts (multi-phase UPSs).",
                         unit: "watts", quantity: .loadWatt, side: .output),
        DevicePhaseGauge(name: "winpower_device_phase_load_va",
                         help: "Apparent output power per phase in volt-amperes (multi-phase UPSs).",
                         unit: nil, quantity: .loadVa, side: .output),
    ]

    /// Whether `device` has more than one phase on `side`: its `config` says so
    /// (`inputPhaseNumber`/`outputPhaseNumber` above 1), or it sent phase 2 or 3 of a quantity
    /// of that side.
    static func isMultiPhase(_ device: Device, side: Side) -> Bool {
        let configured = side == .input ? device.config.inputPhaseNumber : device.config.outputPhaseNumber
        if let configured, configured > 1 { return true }
        guard device.realtime.phases.hasHigherPhases else { return false }
        return all.contains { gauge in
            gauge.side == side && (device.realtime.phases[gauge.quantity, 2] != nil || device.realtime.phases[gauge.quantity, 3] != nil)
        }
    }
}
