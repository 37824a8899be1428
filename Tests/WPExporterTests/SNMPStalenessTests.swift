import Foundation
import Testing
import WPTestThreads
import WPClient
import WPCollector
import WPConfig
import WPSNMP
import WPTestSupport
@testable import WPExporter
import WPSNMPFrontEnd
import WPRuntime

/// The agent withdraws a UPS's readings once they are older than the staleness window even
/// when no collection is published after them (WinPower down: every collection fails), as
/// `/metrics` and the NUT server do; the readings return with the next collection.
@Suite(.ownThreads, .timeLimit(.minutes(4))) struct SNMPStalenessTests {
    @Test func readingsGoStaleWithoutANewCollection() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("wpexporter-snmp-stale-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let users = directory + "/snmp-users.yml"
        try "communities:\n  - community: c0mmunity-Xy\n".write(toFile: users, atomically: true, encoding: .utf8)
        let harness = try await ExporterHarness(devices: 1, configureExporter: { configuration in
            configuration.snmp.listen = "127.0.0.1:0"
            configuration.snmp.usersFile = users
        })
        let snmp = try #require(harness.exporter.snmp)
        func served() throws -> UPSMIBValues { try #require(snmp.source.upsValues().first?.values) }
        await harness.exporter.collector.collect()
        #expect(try served().outputSource == .normal)
        #expect(try served().estimatedChargeRemaining != nil)
        #expect(try served().alarms.isEmpty)
        let window = harness.exporter.collector.configuration.stalenessWindow

        harness.clock.advance(by: window)                       // as old as the window: still served
        #expect(try served().outputSource == .normal)
        harness.clock.advance(by: .seconds(1))                  // older: withdrawn, no collection since
        let stale = try served()
        #expect(stale.outputSource == nil)
        #expect(stale.estimatedChargeRemaining == nil)
        #expect(stale.batteryStatus == nil)
        #expect(stale.alarms.map(\.alarm) == [.communicationsLost])
        let view = try #require(snmp.source.view(context: ""))
        #expect(view.get(UPSMIB.Output.source.appending(0)) == .noSuchObject, "upsOutputSource has no instance")
        // No identification either: NUT's snmp-ups detects the UPS-MIB by upsIdentModel, and a
        // driver started now must fail to start (and be started again), not start without readings.
        for ident in [UPSMIB.Ident.manufacturer, UPSMIB.Ident.model, UPSMIB.Ident.upsSoftwareVersion,
                      UPSMIB.Ident.agentSoftwareVersion, UPSMIB.Ident.name, UPSMIB.Ident.attachedDevices] {
            #expect(view.get(ident.appending(0)) == .noSuchObject, "\(ident)")
        }
        #expect(view.get(SystemGroup.sysName.appending(0)) != .noSuchObject, "the system group stays")
        #expect(view.get(UPSMIB.Alarm.present.appending(0)) == .gauge32(1))

        await harness.exporter.collector.collect()              // WinPower answers again
        #expect(try served().outputSource == .normal)
        let back = try #require(snmp.source.view(context: ""))
        #expect(back.get(UPSMIB.Ident.model.appending(0)) != .noSuchObject)
        #expect(try served().alarms.isEmpty)
        await harness.shutdown()
    }
}
