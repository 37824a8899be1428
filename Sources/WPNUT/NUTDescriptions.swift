/// `GET DESC` texts of the variables the bridge serves (as NUT's own variable table words them).
package enum NUTDescriptions {
    static let descriptions: [String: String] = [
        "battery.charge": "Battery charge (percent of full)",
        "battery.charge.low": "Remaining battery level when UPS switches to LB (percent)",
        "battery.runtime": "Battery runtime (seconds)",
        "battery.runtime.low": "Remaining battery runtime when UPS switches to LB (seconds)",
        "battery.voltage": "Battery voltage (V)",
        "battery.voltage.nominal": "Nominal battery voltage (V)",
        "driver.name": "Driver name",
        "driver.version": "Driver version - NUT release",
        "input.frequency": "Input line frequency (Hz)",
        "input.frequency.nominal": "Nominal input line frequency (Hz)",
        "input.voltage": "Input voltage (V)",
        "input.voltage.nominal": "Nominal input voltage (V)",
        "output.current": "Output current (A)",
        "output.frequency": "Output frequency (Hz)",
        "output.voltage": "Output voltage (V)",
        "ups.alarm": "UPS alarms",
        "ups.firmware": "UPS firmware",
        "ups.id": "UPS system identifier",
        "ups.load": "Load on UPS (percent of full)",
        "ups.model": "UPS model",
        "ups.mfr": "UPS manufacturer",
        "ups.power": "Current value of apparent power (VA)",
        "ups.power.nominal": "UPS power rating (VA)",
        "ups.realpower": "Current value of real power (W)",
        "ups.serial": "UPS serial number",
        "ups.status": "UPS status",
        "ups.temperature": "UPS temperature (degrees C)",
        "ups.test.result": "Results of last self test",
        "input.phases": "Input phases",
        "output.phases": "Output phases",
    ].merging(phaseDescriptions) { first, _ in first }

    /// The three-phase variables, lines L1 to L3.
    private static var phaseDescriptions: [String: String] {
        var texts: [String: String] = [:]
        for line in 1...3 {
            texts["input.L\(line)-N.voltage"] = "Input voltage, L\(line) to neutral (V)"
            texts["input.L\(line).current"] = "Input current, L\(line) (A)"
            texts["output.L\(line)-N.voltage"] = "Output voltage, L\(line) to neutral (V)"
            texts["output.L\(line).current"] = "Output current, L\(line) (A)"
            texts["output.L\(line).realpower"] = "Output real power, L\(line) (W)"
            texts["output.L\(line).power"] = "Output apparent power, L\(line) (VA)"
            texts["output.L\(line).power.percent"] = "Output load, L\(line) (percent of the line's share of the rating)"
        }
        return texts
    }

    /// The description of `variable`, or upsd's text for one it has none for.
    package static func description(of variable: String) -> String {
        descriptions[variable] ?? "Description unavailable"
    }
}
