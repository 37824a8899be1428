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
package struct UPSMIBValues: Sendable, Equatable {
    /// One input line (`upsInputEntry`).
    package struct InputLine: Sendable, Equatable {
        /// Hertz (served in 0.1 Hz).
        package var frequency: Double?
        /// RMS volts.
        package var voltage: Double?
        /// RMS amps (served in 0.1 A).
        package var current: Double?
        /// Watts.
        package var truePower: Double?

        package init(frequency: Double? = nil, voltage: Double? = nil, current: Double? = nil, truePower: Double? = nil) {
            self.frequency = frequency
            self.voltage = voltage
            self.current = current
            self.truePower = truePower
        }
    }

    /// One output line (`upsOutputEntry`).
    package struct OutputLine: Sendable, Equatable {
        /// RMS volts.
        package var voltage: Double?
        /// RMS amps (served in 0.1 A).
        package var current: Double?
        /// Watts.
        package var power: Double?
        /// Percent of the UPS's capacity.
        package var percentLoad: Double?

        package init(voltage: Double? = nil, current: Double? = nil, power: Double? = nil, percentLoad: Double? = nil) {
            self.voltage = voltage
            self.current = current
            self.power = power
            self.percentLoad = percentLoad
        }
    }

    /// One bypass line (`upsBypassEntry`).
    package struct BypassLine: Sendable, Equatable {
        /// RMS volts.
        package var voltage: Double?
        /// RMS amps (served in 0.1 A).
        package var current: Double?
        /// Watts.
        package var power: Double?

        package init(voltage: Double? = nil, current: Double? = nil, power: Double? = nil) {
            self.voltage = voltage
            self.current = current
            self.power = power
        }
    }

    /// A row of the alarm table (`upsAlarmEntry`).
    package struct Alarm: Sendable, Equatable {
        /// `upsAlarmId`: the row's index, unique and at least 1 while the alarm is present.
        package var id: UInt32
        /// `upsAlarmDescr`.
        package var alarm: UPSMIB.WellKnownAlarm
        /// `upsAlarmTime`: `sysUpTime` (hundredths of a second) when it was detected; 0 when
        /// it was present when the agent started.
        package var time: UInt32

        package init(id: UInt32, alarm: UPSMIB.WellKnownAlarm, time: UInt32 = 0) {
            self.id = id
            self.alarm = alarm
            self.time = time
        }
    }

    // upsIdent
    /// `upsIdentManufacturer` (cut to 31 bytes).
    package var manufacturer: String?
    /// `upsIdentModel` (cut to 63 bytes, as are the next four).
    package var model: String?
    /// `upsIdentUPSSoftwareVersion`: the UPS's firmware.
    package var upsSoftwareVersion: String?
    /// `upsIdentAgentSoftwareVersion`: the agent's (wpexporter's) version.
    package var agentSoftwareVersion: String?
    /// `upsIdentName`.
    package var name: String?
    /// `upsIdentAttachedDevices`.
    package var attachedDevices: String?

    // upsBattery
    package var batteryStatus: UPSMIB.BatteryStatus?
    /// Seconds since the UPS last switched to battery; 0 when it is not on battery.
    package var secondsOnBattery: Double?
    /// Seconds of runtime left (served as `upsEstimatedMinutesRemaining`, in whole minutes).
    package var runtimeRemaining: Double?
    /// Percent of full charge (0…100).
    package var estimatedChargeRemaining: Double?
    /// Volts DC (served in 0.1 V).
    package var batteryVoltage: Double?
    /// Amps DC (served in 0.1 A; negative while charging, as the UPS reports it).
    package var batteryCurrent: Double?
    /// Degrees Celsius.
    package var batteryTemperature: Double?

    // upsInput
    /// `upsInputLineBads`: times the input went out of tolerance.
    package var inputLineBads: UInt32?
    /// The input lines, served as rows 1…; `upsInputNumLines` is their number.
    package var inputLines: [InputLine] = []

    // upsOutput
    package var outputSource: UPSMIB.OutputSource?
    /// Hertz (served in 0.1 Hz).
    package var outputFrequency: Double?
    /// The output lines, served as rows 1…; `upsOutputNumLines` is their number.
    package var outputLines: [OutputLine] = []

    // upsBypass
    /// Hertz (served in 0.1 Hz).
    package var bypassFrequency: Double?
    /// The bypass lines; when empty (and ``bypassFrequency`` `nil`) the bypass group is not served.
    package var bypassLines: [BypassLine] = []

    // upsAlarm
    /// The alarms present; `upsAlarmsPresent` is their number.
    package var alarms: [Alarm] = []

    // upsTest
    /// `upsTestId`: the test in progress or last run (`nil`: not served).
    package var testID: UPSMIB.WellKnownTest?
    package var testResult: UPSMIB.TestResult?
    /// `upsTestResultsDetail` (cut to 255 bytes).
    package var testResultDetail: String?
    /// `upsTestStartTime`: `sysUpTime` when the last test started, 0 for none since the agent started.
    package var testStartTime: UInt32?
    /// `upsTestElapsedTime`: the last test's duration, hundredths of a second.
    package var testElapsedTime: UInt32?

    // upsConfig
    /// Nominal input RMS volts.
    package var nominalInputVoltage: Double?
    /// Nominal input hertz (served in 0.1 Hz).
    package var nominalInputFrequency: Double?
    /// Nominal output RMS volts.
    package var nominalOutputVoltage: Double?
    /// Nominal output hertz (served in 0.1 Hz).
    package var nominalOutputFrequency: Double?
    /// Nominal output volt-amps.
    package var nominalOutputVA: Double?
    /// Nominal output watts.
    package var nominalOutputPower: Double?
    /// The remaining runtime, in seconds, below which the battery is low (served in minutes).
    package var lowBatteryTime: Double?

    package init() {}
}
