/// The `realtime` object: live measurements and status codes.
///
/// WinPower sends every value as a string. Measurements become `Double`, status codes `Int`;
/// an absent, empty, `"N/A"`, `"--"` or otherwise unparsable value is `nil`.
package struct RealtimeReadings: Sendable, Equatable {
    /// Input voltage, phase 1 (V).
    package var inputVolt1: Double?
    /// Output voltage, phase 1 (V).
    package var outputVolt1: Double?
    /// Output current, phase 1 (A).
    package var outputCurrent1: Double?
    /// Input frequency (Hz).
    package var inputFreq: Double?
    /// Output frequency (Hz).
    package var outputFreq: Double?
    /// Load as percent of the rating.
    package var loadPercent: Double?
    /// Total active output power (W): the input of the energy integration.
    package var loadTotalWatt: Double?
    /// Active power, phase 1 (W).
    package var loadWatt1: Double?
    /// Apparent power total (VA).
    package var loadTotalVa: Double?
    /// Apparent power, phase 1 (VA).
    package var loadVa1: Double?
    /// Battery charge (%).
    package var batCapacity: Double?
    /// Estimated battery runtime (s).
    package var batRemainTime: Double?
    /// Battery voltage (V).
    package var batVoltP: Double?
    /// UPS temperature (°C).
    package var upsTemperature: Double?
    /// `1` while the battery charges, `0` otherwise.
    package var isCharging: Int?
    /// Operating mode code, `0`–`6` (``OperatingMode``); an unknown code is kept as it came.
    package var mode: Int?
    /// `1` normal, `2` alarm.
    package var status: Int?
    /// `2` normal; other values vendor-defined.
    package var batteryStatus: Int?
    /// Self-test status code.
    package var testStatus: Int?
    package var outputVoltageType: Int?
    package var inputTransformerType: Int?
    /// The fault code, or `nil` when the server sends `""` (no fault) or nothing.
    package var faultCode: String?
    /// Whether the server sent `faultCode` at all (a string or number, `""` included), so
    /// "no fault" can be told from "not reported".
    package var faultCodeReported = false
    /// Phases 2 and 3 (and quantities without a phase-1 field) of a multi-phase UPS.
    package var phases = PhaseReadings()

    /// The value of `quantity` on `phase` (1–3): phase 1 of the quantities with a field of
    /// their own from that field, the rest from ``phases``.
    package func phase(_ quantity: PhaseReadings.Quantity, _ phase: Int) -> Double? {
        guard phase == 1 else { return phases[quantity, phase] }
        switch quantity {
        case .inputVolt: return inputVolt1
        case .outputVolt: return outputVolt1
        case .outputCurrent: return outputCurrent1
        case .loadWatt: return loadWatt1
        case .loadVa: return loadVa1
        case .inputCurrent: return phases[quantity, 1]
        }
    }

    package init() {}
}

/// The `config` object: ratings of the UPS (numbers sent as strings).
package struct DeviceConfig: Sendable, Equatable {
    package var inputPhaseNumber: Double?
    package var outputPhaseNumber: Double?
    /// Rated apparent power (VA).
    package var ratingVa: Double?
    /// Rated voltage (V).
    package var ratingVolt: Double?
    /// Rated frequency (Hz).
    package var ratingFreq: Double?
    /// Rated battery voltage (V).
    package var ratingBatVolt: Double?
    package var ratingBatUnitNumber: Double?
    package var ratingBatVoltPerUnit: Double?
    package var upsModuleNumber: Double?
    package var inputSourceNumber: Double?

    package init() {}
}

/// The `setting` object: user settings of the UPS (numbers sent as strings).
package struct DeviceSetting: Sendable, Equatable {
    package var enableAudible: Double?
    package var enableBypassWhenTurnOff: Double?
    package var batteryModuleNumber: Double?
    /// Days between automatic self-tests.
    package var autoTestPeriod: Double?
    package var enableAutoRestart: Double?

    package init() {}
}
