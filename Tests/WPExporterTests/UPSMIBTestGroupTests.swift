import Foundation
import Testing
import WPTestThreads
import WPClient
import WPCollector
import WPConfig
import WPSNMP
import WPSimulator
import WPRuntime
import WPTestSupport
@testable import WPExporter
import WPNUTFrontEnd
@testable import WPSNMPFrontEnd

/// The UPS-MIB from the outage ledger: the test group (the last self-test's start, kept across
/// restarts, its result, and its elapsed time, reckoned from the agent's start; `upsTestId`
/// naming a test only while it runs) and `upsSecondsOnBattery` from the outage's start.
@Suite(.ownThreads, .timeLimit(.minutes(4))) struct UPSMIBTestGroupTests {
    static let agentStart = Date(timeIntervalSince1970: 1_760_000_000)

    static func values(mode: Int, testStatus: Int?, record: SelfTestRecord?, now: Double = 100, end: Double? = nil) -> UPSMIBValues {
        var device = NUTVariablesTests.device(mode: mode)
        device.realtime.testStatus = testStatus
        let times = UPSMIBMapping.TestTimes(record: record, agentStart: agentStart, now: agentStart.addingTimeInterval(now),
                                            end: end.map { agentStart.addingTimeInterval($0) })
        return UPSMIBMapping.values(of: device, name: "rack-a", agentVersion: "1.0", lowBatteryTime: 120, test: times)
    }

    @Test func aTestInProgressCountsItsElapsedTimeFromTheLedgersStart() {
        let record = SelfTestRecord(count: 3, lastStart: Self.agentStart.addingTimeInterval(40), lastStatus: 5, inProgress: true)
        let ups = Self.values(mode: 5, testStatus: 5, record: record, now: 52.5)
        #expect(ups.testResult == .inProgress)
        #expect(ups.testID == .quickBatteryTest)
        #expect(ups.testStartTime == 4_000, "sysUpTime at the start: 40 s after the agent started")
        #expect(ups.testElapsedTime == 1_250)
        #expect(ups.testResultDetail == "battery self-test in progress (WinPower testStatus 5); 3 seen since counting began")
        #expect(ups.alarms.map(\.alarm).contains(.testInProgress))
    }

    /// A self-test is a test, not an outage: output source normal (NUT's snmp-ups reads `OL`, as
    /// the NUT server says `OL TEST`), no on-battery alarm, and no upsTrapOnBattery, only the
    /// test-in-progress alarm's trap and, at its end, upsTrapTestCompleted.
    @Test func aSelfTestIsNeverServedOrTrappedAsAnOutage() {
        let start = Self.agentStart.addingTimeInterval(40)
        let testing = Self.values(mode: 5, testStatus: 5, record: SelfTestRecord(count: 1, lastStart: start, lastStatus: 5, inProgress: true))
        #expect(testing.outputSource == .normal)
        #expect(testing.secondsOnBattery == 0)
        #expect(!testing.alarms.map(\.alarm).contains(.onBattery))
        var notifier = UPSNotifier()
        _ = notifier.update(Self.values(mode: 3, testStatus: 6, record: nil), now: .seconds(1))
        let during = notifier.update(testing, now: .seconds(2)).map(\.trap)
        #expect(!during.contains(UPSMIB.Traps.onBattery))
        #expect(!during.isEmpty, "the test-in-progress alarm is announced")
        let ended = Self.values(mode: 3, testStatus: 1, record: SelfTestRecord(count: 1, lastStart: start, lastStatus: 1, inProgress: false))
        let after = notifier.update(ended, now: .seconds(30)).map(\.trap)
        #expect(after.contains(UPSMIB.Traps.testCompleted))
        #expect(!after.contains(UPSMIB.Traps.onBattery))
        // A real outage still is one.
        #expect(Self.values(mode: 4, testStatus: 6, record: nil).outputSource == .battery)
    }

    @Test func aFinishedTestKeepsTheResultTheLedgerSawAtItsEnd() {
        // WinPower reports "no test" now; the ledger kept the test's own result (a warning).
        let record = SelfTestRecord(count: 1, lastStart: Self.agentStart.addingTimeInterval(10), lastStatus: 2, inProgress: false)
        let ups = Self.values(mode: 3, testStatus: 6, record: record, now: 500, end: 25)
        #expect(ups.testResult == .doneWarning)
        #expect(ups.testID == .noTestsInitiated, "no test runs now: NUT's IETF mapping would read TEST")
        #expect(ups.testStartTime == 1_000)
        #expect(ups.testElapsedTime == 1_500, "the test's duration: from its start to the reading that saw it end")
        #expect(ups.testResultDetail?.hasPrefix("battery self-test passed with a warning (WinPower testStatus 2)") == true)
    }

    /// After a restart the ledger still has the last test: its result, and a start before the
    /// agent's (TimeStamp 0); its duration was not seen by this agent, so it has no instance.
    @Test func aTestBeforeTheAgentStartedIsServedWithStartTimeZero() {
        let record = SelfTestRecord(count: 2, lastStart: Self.agentStart.addingTimeInterval(-3_600), lastStatus: 3, inProgress: false)
        let ups = Self.values(mode: 3, testStatus: 1, record: record)
        #expect(ups.testResult == .doneError)
        #expect(ups.testStartTime == 0)
        #expect(ups.testElapsedTime == nil)
        var builder = MIBBuilder()
        ups.add(to: &builder)
        let table = builder.build()
        #expect(table.get(UPSMIB.Test.resultsSummary.appending(0)) == .integer(3))
        #expect(table.get(UPSMIB.Test.startTime.appending(0)) == .timeTicks(0))
        #expect(table.get(UPSMIB.Test.elapsedTime.appending(0)).isException)
    }

    @Test func withoutALedgerRecordWinPowersStatusIsServedWithoutTimes() {
        let passed = Self.values(mode: 3, testStatus: 1, record: nil)
        #expect(passed.testResult == .donePass)
        #expect(passed.testID == .noTestsInitiated)
        #expect(passed.testStartTime == nil && passed.testElapsedTime == nil)
        let none = Self.values(mode: 3, testStatus: 6, record: nil)
        #expect(none.testResult == .noTestsInitiated)
        #expect(none.testID == .noTestsInitiated)
        let unknown = Self.values(mode: 3, testStatus: nil, record: nil)
        #expect(unknown.testResult == nil && unknown.testID == nil && unknown.testResultDetail == nil,
                "no reading, no instance (never a made-up result)")
    }

    /// A simulated UPS on battery from 10 s to 70 s: `upsSecondsOnBattery` counts from the
    /// ledger's start of the outage (its first on-battery reading, at 15 s) and is 0 on mains.
    @Test func secondsOnBatteryCountFromTheOutageLedgersStart() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("wpexporter-snmp-outage-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let users = directory + "/snmp-users.yml"
        try "communities:\n  - community: c0mmunity-Xy\n".write(toFile: users, atomically: true, encoding: .utf8)
        let harness = try await ExporterHarness(devices: 1, configure: { simulator in
            simulator.outageSchedule = [OutageWindow(device: 0, start: 10, length: 60)]
        }, configureExporter: { configuration in
            configuration.snmp.listen = "127.0.0.1:0"
            configuration.snmp.usersFile = users
        })
        let snmp = try #require(harness.exporter.snmp)
        func served() throws -> UPSMIBValues { try #require(snmp.source.upsValues().first?.values) }
        await harness.exporter.collector.collect()
        #expect(try served().secondsOnBattery == 0, "on mains")
        #expect(try served().inputLineBads == 0, "upsInputLineBads: no transfer yet")
        for (advance, expected) in [(15, 0.0), (5, 5), (25, 30)] {
            harness.clock.advance(by: .seconds(advance))
            await harness.exporter.collector.collect()
            let ups = try served()
            #expect(ups.outputSource == .battery)
            #expect(ups.secondsOnBattery == expected, "at \(harness.clock.now)")
        }
        harness.clock.advance(by: .seconds(30))   // t = 75 s: mains back
        await harness.exporter.collector.collect()
        #expect(try served().outputSource == .normal)
        #expect(try served().secondsOnBattery == 0)
        #expect(try served().inputLineBads == 1, "upsInputLineBads: the outage's transfer, from the ledger")
        await harness.shutdown()
    }

    @Test func spansAreHundredthsClampedToTheirType() {
        #expect(UPSMIBMapping.hundredths(-5) == 0)
        #expect(UPSMIBMapping.hundredths(.nan) == 0)
        #expect(UPSMIBMapping.hundredths(1.239) == 123)
        #expect(UPSMIBMapping.hundredths(1e12) == UInt32.max)
    }

    /// A simulated UPS runs a battery self-test from 15 s to 35 s: the agent serves it in
    /// progress, then its result and duration; restarted, the ledger still gives its result,
    /// its count, and a start before the agent's (TimeStamp 0).
    @Test func theTestGroupFollowsASelfTestAndSurvivesARestart() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("wpexporter-snmp-test-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let users = directory + "/snmp-users.yml"
        try "communities:\n  - community: c0mmunity-Xy\n".write(toFile: users, atomically: true, encoding: .utf8)
        let withSNMP: @Sendable (inout ExporterConfiguration) -> Void = { configuration in
            configuration.snmp.listen = "127.0.0.1:0"
            configuration.snmp.usersFile = users
        }
        let first = try await ExporterHarness(devices: 1, configure: { simulator in
            simulator.outageSchedule = [OutageWindow(device: 0, start: 15, length: 20, role: .batteryTest)]
        }, configureExporter: withSNMP)
        let snmp = try #require(first.exporter.snmp)
        func served(_ snmp: SNMPService<ManualClock>) throws -> UPSMIBValues {
            snmp.notify()
            return try #require(snmp.source.upsValues().first?.values)
        }
        await first.exporter.collector.collect()
        let before = try served(snmp)
        #expect(before.testResult == .donePass, "WinPower's own status before any test was seen")
        #expect(before.testStartTime == nil)
        #expect(before.testID == .noTestsInitiated)

        first.clock.advance(by: .seconds(15))
        await first.exporter.collector.collect()
        let during = try served(snmp)
        #expect(during.testResult == .inProgress)
        #expect(during.testID == .quickBatteryTest, "named while it runs")
        #expect(during.testStartTime == 1_500, "sysUpTime at the test's first reading")
        #expect(during.testElapsedTime == 0)

        first.clock.advance(by: .seconds(20))
        await first.exporter.collector.collect()
        let after = try served(snmp)
        #expect(after.testResult == .donePass)
        #expect(after.testID == .noTestsInitiated, "ended: only the summary keeps its result")
        #expect(after.testStartTime == 1_500)
        #expect(after.testElapsedTime == 2_000, "from the test's first reading to the first reading after it")
        #expect(after.testResultDetail?.contains("1 seen") == true, "\(after.testResultDetail ?? "")")
        await first.shutdown()

        let second = try await ExporterHarness(devices: 1, dataDirectory: first.dataDirectory, clock: first.clock,
                                               configure: { $0.deviceCount = 1 }, configureExporter: withSNMP)
        second.clock.advance(by: .seconds(10))
        await second.exporter.collector.collect()
        let restarted = try served(try #require(second.exporter.snmp))
        #expect(restarted.testResult == .donePass)
        #expect(restarted.testID == .noTestsInitiated)
        #expect(restarted.testStartTime == 0, "the test started before this agent: TimeStamp 0")
        #expect(restarted.testElapsedTime == nil, "its end was not seen by this agent")
        #expect(restarted.testResultDetail?.contains("1 seen") == true)
        await second.shutdown()
    }
}
