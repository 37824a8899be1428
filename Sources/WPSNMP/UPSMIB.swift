/// Object identifiers and enumerations of the UPS-MIB (RFC 1628, `mib-2.33`).
public enum UPSMIB {
    /// `upsMIB` (`1.3.6.1.2.1.33`).
    public static let upsMIB: OID = "1.3.6.1.2.1.33"
    /// `upsObjects` (`upsMIB.1`).
    public static let objects = upsMIB.appending(1)

    /// `upsIdent` (`upsObjects.1`): scalars.
    public enum Ident {
        public static let group = objects.appending(1)
        /// DisplayString (SIZE 0..31).
        public static let manufacturer = group.appending(1)
        /// DisplayString (SIZE 0..63); so are the following four.
        public static let model = group.appending(2)
        public static let upsSoftwareVersion = group.appending(3)
        public static let agentSoftwareVersion = group.appending(4)
        public static let name = group.appending(5)
        public static let attachedDevices = group.appending(6)
    }

    /// `upsBattery` (`upsObjects.2`): scalars.
    public enum Battery {
        public static let group = objects.appending(2)
        /// INTEGER ``UPSMIB/BatteryStatus``.
        public static let status = group.appending(1)
        /// NonNegativeInteger, seconds (0 when not on battery).
        public static let secondsOnBattery = group.appending(2)
        /// PositiveInteger, minutes.
        public static let estimatedMinutesRemaining = group.appending(3)
        /// INTEGER (0..100), percent.
        public static let estimatedChargeRemaining = group.appending(4)
        /// NonNegativeInteger, 0.1 Volt DC.
        public static let voltage = group.appending(5)
        /// Integer32, 0.1 Amp DC.
        public static let current = group.appending(6)
        /// Integer32, degrees Centigrade.
        public static let temperature = group.appending(7)
    }

    /// `upsInput` (`upsObjects.3`).
    public enum Input {
        public static let group = objects.appending(3)
        /// Counter32.
        public static let lineBads = group.appending(1)
        /// NonNegativeInteger.
        public static let numLines = group.appending(2)
        /// `upsInputEntry` (`upsInputTable.1`), indexed by `upsInputLineIndex` (1…).
        public static let entry = group.appending(3, 1)
        /// 0.1 Hertz.
        public static let frequency = entry.appending(2)
        /// RMS Volts.
        public static let voltage = entry.appending(3)
        /// 0.1 RMS Amp.
        public static let current = entry.appending(4)
        /// Watts.
        public static let truePower = entry.appending(5)
    }

    /// `upsOutput` (`upsObjects.4`).
    public enum Output {
        public static let group = objects.appending(4)
        /// INTEGER ``UPSMIB/OutputSource``.
        public static let source = group.appending(1)
        /// 0.1 Hertz.
        public static let frequency = group.appending(2)
        public static let numLines = group.appending(3)
        /// `upsOutputEntry` (`upsOutputTable.1`), indexed by `upsOutputLineIndex`.
        public static let entry = group.appending(4, 1)
        /// RMS Volts.
        public static let voltage = entry.appending(2)
        /// 0.1 RMS Amp.
        public static let current = entry.appending(3)
        /// Watts.
        public static let power = entry.appending(4)
        /// Percent of the UPS's capacity.
        public static let percentLoad = entry.appending(5)
    }

    /// `upsBypass` (`upsObjects.5`).
    public enum Bypass {
        public static let group = objects.appending(5)
        /// 0.1 Hertz.
        public static let frequency = group.appending(1)
        public static let numLines = group.appending(2)
        /// `upsBypassEntry` (`upsBypassTable.1`), indexed by `upsBypassLineIndex`.
        public static let entry = group.appending(3, 1)
        /// RMS Volts.
        public static let voltage = entry.appending(2)
        /// 0.1 RMS Amp.
        public static let current = entry.appending(3)
        /// Watts.
        public static let power = entry.appending(4)
    }

    /// `upsAlarm` (`upsObjects.6`).
    public enum Alarm {
        public static let group = objects.appending(6)
        /// Gauge32: the rows of the alarm table.
        public static let present = group.appending(1)
        /// `upsAlarmEntry` (`upsAlarmTable.1`), indexed by `upsAlarmId`.
        public static let entry = group.appending(2, 1)
        /// AutonomousType: one of ``UPSMIB/WellKnownAlarm``'s OIDs.
        public static let descr = entry.appending(2)
        /// TimeStamp: `sysUpTime` when the alarm was detected.
        public static let time = entry.appending(3)
        /// `upsWellKnownAlarms` (`upsAlarm.3`).
        public static let wellKnownAlarms = group.appending(3)
    }

    /// `upsTest` (`upsObjects.7`).
    public enum Test {
        public static let group = objects.appending(7)
        /// OBJECT IDENTIFIER: one of ``UPSMIB/WellKnownTest``'s OIDs.
        public static let id = group.appending(1)
        /// INTEGER ``UPSMIB/TestResult``.
        public static let resultsSummary = group.appending(3)
        /// DisplayString (SIZE 0..255).
        public static let resultsDetail = group.appending(4)
        /// TimeStamp.
        public static let startTime = group.appending(5)
        /// TimeInterval (hundredths of a second).
        public static let elapsedTime = group.appending(6)
        /// `upsWellKnownTests` (`upsTest.7`).
        public static let wellKnownTests = group.appending(7)
    }

    /// `upsConfig` (`upsObjects.9`): the nominal ratings.
    public enum Config {
        public static let group = objects.appending(9)
        /// RMS Volts.
        public static let inputVoltage = group.appending(1)
        /// 0.1 Hertz.
        public static let inputFreq = group.appending(2)
        /// RMS Volts.
        public static let outputVoltage = group.appending(3)
        /// 0.1 Hertz.
        public static let outputFreq = group.appending(4)
        /// Volt-Amps.
        public static let outputVA = group.appending(5)
        /// Watts.
        public static let outputPower = group.appending(6)
        /// Minutes.
        public static let lowBattTime = group.appending(7)
    }

    /// `upsBatteryStatus`.
    public enum BatteryStatus: Int32, Sendable, Equatable {
        case unknown = 1, batteryNormal = 2, batteryLow = 3, batteryDepleted = 4
    }

    /// `upsOutputSource`.
    public enum OutputSource: Int32, Sendable, Equatable {
        case other = 1, none = 2, normal = 3, bypass = 4, battery = 5, booster = 6, reducer = 7
    }

    /// `upsTestResultsSummary`.
    public enum TestResult: Int32, Sendable, Equatable {
        case donePass = 1, doneWarning = 2, doneError = 3, aborted = 4, inProgress = 5, noTestsInitiated = 6
    }

    /// `upsWellKnownAlarms` (RFC 1628): the alarm OIDs `upsAlarmDescr` points to.
    public enum WellKnownAlarm: UInt32, Sendable, Equatable, CaseIterable {
        case batteryBad = 1, onBattery, lowBattery, depletedBattery, tempBad, inputBad, outputBad, outputOverload
        case onBypass, bypassBad, outputOffAsRequested, upsOffAsRequested, chargerFailed, upsOutputOff, upsSystemOff
        case fanFailure, fuseFailure, generalFault, diagnosticTestFailed, communicationsLost, awaitingPower
        case shutdownPending, shutdownImminent, testInProgress

        /// `upsWellKnownAlarms.n` (`upsAlarmOnBattery` is `1.3.6.1.2.1.33.1.6.3.2`).
        public var oid: OID { Alarm.wellKnownAlarms.appending(rawValue) }
    }

    /// `upsWellKnownTests` (RFC 1628): the values of `upsTestId`.
    public enum WellKnownTest: UInt32, Sendable, Equatable, CaseIterable {
        case noTestsInitiated = 1, abortTestInProgress, generalSystemsTest, quickBatteryTest, deepBatteryCalibration

        public var oid: OID { Test.wellKnownTests.appending(rawValue) }
    }
}
