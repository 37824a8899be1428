/// The `realtime` object: live measurements and status codes.
///
/// WinPower sends every value as a string. Measurements become `Double`, status codes `Int`;
/// an absent, empty, `"N/A"`, `"--"` or otherwise unparsable value is `nil`.
public struct RealtimeReadings: Sendable, Equatable {
    /// Input voltage, phase 1 (V).
    public var inputVolt1: Double?
    /// Output voltage, phase 1 (V).
    public var outputVolt1: Double?
    /// Output current, phase 1 (A).
    public var outputCurrent1: Double?
    /// Input frequency (Hz).
    public var inputFreq: Double?
    /// Output frequency (Hz).
    public var outputFreq: Double?
    /// Load as percent of the rating.
    public var loadPercent: Double?
    /// Total active output power (W): the input of the energy integration.
    public var loadTotalWatt: Double?
    /// Active power, phase 1 (W).
    public var loadWatt1: Double?
    /// Apparent power total (VA).
    public var loadTotalVa: Double?
    /// Apparent power, phase 1 (VA).
    public var loadVa1: Double?
    /// Battery charge (%).
    public var batCapacity: Double?
    /// Estimated battery runtime (s).
    public var batRemainTime: Double?
    /// Battery voltage (V).
    public var batVoltP: Double?
    /// UPS temperature (°C).
    public var upsTemperature: Double?
    /// `1` while the battery charges, `0` otherwise.
    public var isCharging: Int?
    /// Operating mode code, `0`–`6` (``OperatingMode``); an unknown code is kept as it came.
    public var mode: Int?
    /// `1` normal, `2` alarm.
    public var status: Int?
    /// `2` normal; other values vendor-defined.
    public var batteryStatus: Int?
    /// Self-test status code.
    public var testStatus: Int?
    /// `outputVoltageType`: the output voltage type code, vendor-defined.
    public var outputVoltageType: Int?
    /// `inputTransformerType`: the input transformer type code, vendor-defined.
    public var inputTransformerType: Int?
    /// The fault code, or `nil` when the server sends `""` (no fault) or nothing.
    public var faultCode: String?
    /// Whether the server sent `faultCode` at all (a string or number, `""` included), so
    /// "no fault" can be told from "not reported".
    public var faultCodeReported = false
    /// Phases 2 and 3 (and quantities without a phase-1 field) of a multi-phase UPS.
    public var phases = PhaseReadings()

    /// The value of `quantity` on `phase` (1–3): phase 1 of the quantities with a field of
    /// their own from that field, the rest from ``phases``.
    public func phase(_ quantity: PhaseReadings.Quantity, _ phase: Int) -> Double? {
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

    /// Creates readings with every value `nil`.
    public init() {}
}

/// The `config` object: ratings of the UPS (numbers sent as strings).
public struct DeviceConfig: Sendable, Equatable {
    /// `inputPhaseNumber`: the number of input phases (1 or 3).
    public var inputPhaseNumber: Double?
    /// `outputPhaseNumber`: the number of output phases (1 or 3).
    public var outputPhaseNumber: Double?
    /// Rated apparent power (VA).
    public var ratingVa: Double?
    /// Rated voltage (V).
    public var ratingVolt: Double?
    /// Rated frequency (Hz).
    public var ratingFreq: Double?
    /// Rated battery voltage (V).
    public var ratingBatVolt: Double?
    /// `ratingBatUnitNumber`: the number of battery blocks in series.
    public var ratingBatUnitNumber: Double?
    /// `ratingBatVoltPerUnit`: the rated voltage of one battery block (V).
    public var ratingBatVoltPerUnit: Double?
    /// `upsModuleNumber`: the number of UPS modules.
    public var upsModuleNumber: Double?
    /// `inputSourceNumber`: the number of input sources.
    public var inputSourceNumber: Double?

    /// Creates ratings with every value `nil`.
    public init() {}
}

/// The `setting` object: user settings of the UPS (numbers sent as strings).
public struct DeviceSetting: Sendable, Equatable {
    /// `enableAudible`: `1` when the audible alarm is on, `0` when muted.
    public var enableAudible: Double?
    /// `enableBypassWhenTurnOff`: `1` when the UPS goes to bypass when turned off, else `0`.
    public var enableBypassWhenTurnOff: Double?
    /// `batteryModuleNumber`: the number of battery modules.
    public var batteryModuleNumber: Double?
    /// Days between automatic self-tests.
    public var autoTestPeriod: Double?
    /// `enableAutoRestart`: `1` when the UPS restarts by itself once mains returns, else `0`.
    public var enableAutoRestart: Double?

    /// Creates settings with every value `nil`.
    public init() {}
}

extension RealtimeReadings {
    /// WinPower's own low-battery flag: its `batteryStatus` code read with UPS-MIB's
    /// `upsBatteryStatus` numbering (2 normal, which is what WinPower reports in normal
    /// operation; 3 low, 4 depleted). Other codes say nothing.
    package var flagsLowBattery: Bool { batteryStatus == 3 || batteryStatus == 4 }
}
