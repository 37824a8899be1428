/// The readings of one UPS in plain units, from which ``add(to:)`` builds its UPS-MIB
/// (RFC 1628) instances in the MIB's own units.
///
/// Every reading is optional: one that is `nil` (WinPower did not give it) has no instance,
/// never `0`. Numbers are given in volts, amps, hertz, watts, seconds and percent as a
/// device reports them; ``add(to:)`` scales them (0.1 Hz, 0.1 A, 0.1 V DC, minutes) and
/// rounds to the nearest integer. A value that does not fit its MIB type (a negative
/// NonNegativeInteger, a charge over 100 %, anything beyond 32 bits, NaN) has no instance.
///
/// ```swift
/// var ups = UPSMIBValues()
/// ups.manufacturer = "ACME"
/// ups.estimatedChargeRemaining = 87
/// ups.inputLines = [.init(frequency: 50.0, voltage: 229.6)]
/// var builder = MIBBuilder()
/// ups.add(to: &builder)
/// ```
public struct UPSMIBValues: Sendable, Equatable {
    /// One input line (`upsInputEntry`).
    public struct InputLine: Sendable, Equatable {
        /// Hertz (served in 0.1 Hz).
        public var frequency: Double?
        /// RMS volts.
        public var voltage: Double?
        /// RMS amps (served in 0.1 A).
        public var current: Double?
        /// Watts.
        public var truePower: Double?

        public init(frequency: Double? = nil, voltage: Double? = nil, current: Double? = nil, truePower: Double? = nil) {
            self.frequency = frequency
            self.voltage = voltage
            self.current = current
            self.truePower = truePower
        }
    }

    /// One output line (`upsOutputEntry`).
    public struct OutputLine: Sendable, Equatable {
        /// RMS volts.
        public var voltage: Double?
        /// RMS amps (served in 0.1 A).
        public var current: Double?
        /// Watts.
        public var power: Double?
        /// Percent of the UPS's capacity.
        public var percentLoad: Double?

        public init(voltage: Double? = nil, current: Double? = nil, power: Double? = nil, percentLoad: Double? = nil) {
            self.voltage = voltage
            self.current = current
            self.power = power
            self.percentLoad = percentLoad
        }
    }

    /// One bypass line (`upsBypassEntry`).
    public struct BypassLine: Sendable, Equatable {
        /// RMS volts.
        public var voltage: Double?
        /// RMS amps (served in 0.1 A).
        public var current: Double?
        /// Watts.
        public var power: Double?

        public init(voltage: Double? = nil, current: Double? = nil, power: Double? = nil) {
            self.voltage = voltage
            self.current = current
            self.power = power
        }
    }

    /// A row of the alarm table (`upsAlarmEntry`).
    public struct Alarm: Sendable, Equatable {
        /// `upsAlarmId`: the row's index, unique and at least 1 while the alarm is present.
        public var id: UInt32
        /// `upsAlarmDescr`.
        public var alarm: UPSMIB.WellKnownAlarm
        /// `upsAlarmTime`: `sysUpTime` (hundredths of a second) when it was detected; 0 when
        /// it was present when the agent started.
        public var time: UInt32

        public init(id: UInt32, alarm: UPSMIB.WellKnownAlarm, time: UInt32 = 0) {
            self.id = id
            self.alarm = alarm
            self.time = time
        }
    }

    // upsIdent
    /// `upsIdentManufacturer` (cut to 31 bytes).
    public var manufacturer: String?
    /// `upsIdentModel` (cut to 63 bytes, as are the next four).
    public var model: String?
    /// `upsIdentUPSSoftwareVersion`: the UPS's firmware.
    public var upsSoftwareVersion: String?
    /// `upsIdentAgentSoftwareVersion`: the agent's (wpexporter's) version.
    public var agentSoftwareVersion: String?
    /// `upsIdentName`.
    public var name: String?
    /// `upsIdentAttachedDevices`.
    public var attachedDevices: String?

    // upsBattery
    public var batteryStatus: UPSMIB.BatteryStatus?
    /// Seconds since the UPS last switched to battery; 0 when it is not on battery.
    public var secondsOnBattery: Double?
    /// Seconds of runtime left (served as `upsEstimatedMinutesRemaining`, in whole minutes).
    public var runtimeRemaining: Double?
    /// Percent of full charge (0…100).
    public var estimatedChargeRemaining: Double?
    /// Volts DC (served in 0.1 V).
    public var batteryVoltage: Double?
    /// Amps DC (served in 0.1 A; negative while charging, as the UPS reports it).
    public var batteryCurrent: Double?
    /// Degrees Celsius.
    public var batteryTemperature: Double?

    // upsInput
    /// `upsInputLineBads`: times the input went out of tolerance.
    public var inputLineBads: UInt32?
    /// The input lines, served as rows 1…; `upsInputNumLines` is their number.
    public var inputLines: [InputLine] = []

    // upsOutput
    public var outputSource: UPSMIB.OutputSource?
    /// Hertz (served in 0.1 Hz).
    public var outputFrequency: Double?
    /// The output lines, served as rows 1…; `upsOutputNumLines` is their number.
    public var outputLines: [OutputLine] = []

    // upsBypass
    /// Hertz (served in 0.1 Hz).
    public var bypassFrequency: Double?
    /// The bypass lines; when empty (and ``bypassFrequency`` `nil`) the bypass group is not served.
    public var bypassLines: [BypassLine] = []

    // upsAlarm
    /// The alarms present; `upsAlarmsPresent` is their number.
    public var alarms: [Alarm] = []

    // upsTest
    /// `upsTestId`: the test in progress or last run (`nil`: not served).
    public var testID: UPSMIB.WellKnownTest?
    public var testResult: UPSMIB.TestResult?
    /// `upsTestResultsDetail` (cut to 255 bytes).
    public var testResultDetail: String?
    /// `upsTestStartTime`: `sysUpTime` when the last test started, 0 for none since the agent started.
    public var testStartTime: UInt32?
    /// `upsTestElapsedTime`: the last test's duration, hundredths of a second.
    public var testElapsedTime: UInt32?

    // upsConfig
    /// Nominal input RMS volts.
    public var nominalInputVoltage: Double?
    /// Nominal input hertz (served in 0.1 Hz).
    public var nominalInputFrequency: Double?
    /// Nominal output RMS volts.
    public var nominalOutputVoltage: Double?
    /// Nominal output hertz (served in 0.1 Hz).
    public var nominalOutputFrequency: Double?
    /// Nominal output volt-amps.
    public var nominalOutputVA: Double?
    /// Nominal output watts.
    public var nominalOutputPower: Double?
    /// The remaining runtime, in seconds, below which the battery is low (served in minutes).
    public var lowBatteryTime: Double?

    public init() {}
}
