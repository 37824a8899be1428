/// Object identifiers and enumerations of the UPS-MIB (RFC 1628, `mib-2.33`).
package enum UPSMIB {
    /// `upsMIB` (`1.3.6.1.2.1.33`).
    package static let upsMIB: OID = "1.3.6.1.2.1.33"
    /// `upsObjects` (`upsMIB.1`).
    package static let objects = upsMIB.appending(1)

    /// `upsIdent` (`upsObjects.1`): scalars.
    package enum Ident {
        package static let group = objects.appending(1)
        /// DisplayString (SIZE 0..31).
        package static let manufacturer = group.appending(1)
        /// DisplayString (SIZE 0..63); so are the following four.
        package static let model = group.appending(2)
        package static let upsSoftwareVersion = group.appending(3)
        package static let agentSoftwareVersion = group.appending(4)
        package static let name = group.appending(5)
        package static let attachedDevices = group.appending(6)
    }

    /// `upsBattery` (`upsObjects.2`): scalars.
    package enum Battery {
        package static let group = objects.appending(2)
        /// INTEGER ``UPSMIB/BatteryStatus``.
        package static let status = group.appending(1)
        /// NonNegativeInteger, seconds (0 when not on battery).
        package static let secondsOnBattery = group.appending(2)
        /// PositiveInteger, minutes.
        package static let estimatedMinutesRemaining = group.appending(3)
        /// INTEGER (0..100), percent.
        package static let estimatedChargeRemaining = group.appending(4)
        /// NonNegativeInteger, 0.1 Volt DC.
        package static let voltage = group.appending(5)
        /// Integer32, 0.1 Amp DC.
        package static let current = group.appending(6)
        /// Integer32, degrees Centigrade.
        package static let temperature = group.appending(7)
    }

    /// `upsInput` (`upsObjects.3`).
    package enum Input {
        package static let group = objects.appending(3)
        /// Counter32.
        package static let lineBads = group.appending(1)
        /// NonNegativeInteger.
        package static let numLines = group.appending(2)
        /// `upsInputEntry` (`upsInputTable.1`), indexed by `upsInputLineIndex` (1…).
        package static let entry = group.appending(3, 1)
        /// 0.1 Hertz.
        package static let frequency = entry.appending(2)
        /// RMS Volts.
        package static let voltage = entry.appending(3)
        /// 0.1 RMS Amp.
        package static let current = entry.appending(4)
        /// Watts.
        package static let truePower = entry.appending(5)
    }

    /// `upsOutput` (`upsObjects.4`).
    package enum Output {
        package static let group = objects.appending(4)
        /// INTEGER ``UPSMIB/OutputSource``.
        package static let source = group.appending(1)
        /// 0.1 Hertz.
        package static let frequency = group.appending(2)
        package static let numLines = group.appending(3)
        /// `upsOutputEntry` (`upsOutputTable.1`), indexed by `upsOutputLineIndex`.
        package static let entry = group.appending(4, 1)
        /// RMS Volts.
        package static let voltage = entry.appending(2)
        /// 0.1 RMS Amp.
        package static let current = entry.appending(3)
        /// Watts.
        package static let power = entry.appending(4)
        /// Percent of the UPS's capacity.
        package static let percentLoad = entry.appending(5)
    }

    /// `upsBypass` (`upsObjects.5`).
    package enum Bypass {
        package static let group = objects.appending(5)
        /// 0.1 Hertz.
        package static let frequency = group.appending(1)
        package static let numLines = group.appending(2)
        /// `upsBypassEntry` (`upsBypassTable.1`), indexed by `upsBypassLineIndex`.
        package static let entry = group.appending(3, 1)
        /// RMS Volts.
        package static let voltage = entry.appending(2)
        /// 0.1 RMS Amp.
        package static let current = entry.appending(3)
        /// Watts.
        package static let power = entry.appending(4)
    }

    /// `upsAlarm` (`upsObjects.6`).
    package enum Alarm {
        package static let group = objects.appending(6)
        /// Gauge32: the rows of the alarm table.
        package static let present = group.appending(1)
        /// `upsAlarmEntry` (`upsAlarmTable.1`), indexed by `upsAlarmId`.
        package static let entry = group.appending(2, 1)
        /// AutonomousType: one of ``UPSMIB/WellKnownAlarm``'s OIDs.
        package static let descr = entry.appending(2)
        /// TimeStamp: `sysUpTime` when the alarm was detected.
        package static let time = entry.appending(3)
        /// `upsWellKnownAlarms` (`upsAlarm.3`).
        package static let wellKnownAlarms = group.appending(3)
    }

    /// `upsTest` (`upsObjects.7`).
    package enum Test {
        package static let group = objects.appending(7)
        /// OBJECT IDENTIFIER: one of ``UPSMIB/WellKnownTest``'s OIDs.
        package static let id = group.appending(1)
        /// INTEGER ``UPSMIB/TestResult``.
        package static let resultsSummary = group.appending(3)
        /// DisplayString (SIZE 0..255).
        package static let resultsDetail = group.appending(4)
        /// TimeStamp.
        package static let startTime = group.appending(5)
        /// TimeInterval (hundredths of a second).
        package static let elapsedTime = group.appending(6)
        /// `upsWellKnownTests` (`upsTest.7`).
        package static let wellKnownTests = group.appending(7)
    }

    /// `upsConfig` (`upsObjects.9`): the nominal ratings.
    package enum Config {
        package static let group = objects.appending(9)
        /// RMS Volts.
        package static let inputVoltage = group.appending(1)
        /// 0.1 Hertz.
        package static let inputFreq = group.appending(2)
        /// RMS Volts.
        package static let outputVoltage = group.appending(3)
        /// 0.1 Hertz.
        package static let outputFreq = group.appending(4)
        /// Volt-Amps.
        package static let outputVA = group.appending(5)
        /// Watts.
        package static let outputPower = group.appending(6)
        /// Minutes.
        package static let lowBattTime = group.appending(7)
    }

    /// `upsBatteryStatus`.
    package enum BatteryStatus: Int32, Sendable, Equatable {
        case unknown = 1, batteryNormal = 2, batteryLow = 3, batteryDepleted = 4
    }

    /// `upsOutputSource`.
    package enum OutputSource: Int32, Sendable, Equatable {
        case other = 1, none = 2, normal = 3, bypass = 4, battery = 5, booster = 6, reducer = 7
    }

    /// `upsTestResultsSummary`.
    package enum TestResult: Int32, Sendable, Equatable {
        case donePass = 1, doneWarning = 2, doneError = 3, aborted = 4, inProgress = 5, noTestsInitiated = 6
    }

    /// `upsWellKnownAlarms` (RFC 1628): the alarm OIDs `upsAlarmDescr` points to.
    package enum WellKnownAlarm: UInt32, Sendable, Equatable, CaseIterable {
        case batteryBad = 1, onBattery, lowBattery, depletedBattery, tempBad, inputBad, outputBad, outputOverload
        case onBypass, bypassBad, outputOffAsRequested, upsOffAsRequested, chargerFailed, upsOutputOff, upsSystemOff
        case fanFailure, fuseFailure, generalFault, diagnosticTestFailed, communicationsLost, awaitingPower
        case shutdownPending, shutdownImminent, testInProgress

        /// `upsWellKnownAlarms.n` (`upsAlarmOnBattery` is `1.3.6.1.2.1.33.1.6.3.2`).
        package var oid: OID { Alarm.wellKnownAlarms.appending(rawValue) }
    }

    /// `upsWellKnownTests` (RFC 1628): the values of `upsTestId`.
    package enum WellKnownTest: UInt32, Sendable, Equatable, CaseIterable {
        case noTestsInitiated = 1, abortTestInProgress, generalSystemsTest, quickBatteryTest, deepBatteryCalibration

        package var oid: OID { Test.wellKnownTests.appending(rawValue) }
    }
}
