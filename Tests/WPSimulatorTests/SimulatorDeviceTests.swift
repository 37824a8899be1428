import Foundation
import Testing
import WPTestThreads
import WPClient
import WPServer
import WPSimulator
import WPTestSupport
import WPRuntime

/// Simulated devices: stable, varied, string-typed, and on the exact power curves.
@Suite(.ownThreads, .timeLimit(.minutes(4))) struct SimulatorDeviceTests {
    static func simulator(devices: Int) -> WinPowerSimulator {
        var configuration = WinPowerSimulator.Configuration()
        configuration.deviceCount = devices
        return WinPowerSimulator(configuration: configuration)
    }

    @Test func devicesAreStableAcrossInstances() {
        #expect(Self.simulator(devices: 50).devices == Self.simulator(devices: 50).devices)
        #expect(Set(Self.simulator(devices: 50).devices.map(\.id)).count == 50)
    }

    @Test func aliasesRepeatAndHoldQuotesBackslashesAndNonASCII() {
        let aliases = Self.simulator(devices: 10).devices.map(\.alias)
        #expect(Set(aliases).count < aliases.count)
        #expect(aliases.contains { $0.contains("\"") })
        #expect(aliases.contains { $0.contains("\\") })
        #expect(aliases.contains { $0.unicodeScalars.contains { !$0.isASCII } })
    }

    @Test func everyRealtimeValueIsAString() async throws {
        let harness = SimulatorHarness(devices: 5)
        let body = try json(try await harness.simulator.handle(listRequest(token: try await token(harness.simulator))))
        for device in try #require(body["data"] as? [[String: Any]]) {
            let realtime = try #require(device["realtime"] as? [String: Any])
            #expect(realtime.count == 22)
            #expect(realtime.values.allSatisfy { $0 is String })
            #expect((device["config"] as? [String: Any])?.values.allSatisfy { $0 is String } == true)
        }
    }

    /// Decoded with the real client: roles show as the exporter will see them.
    @Test func rolesOnBatteryDisconnectedAndFault() async throws {
        let harness = SimulatorHarness(devices: 4)
        let devices = try await harness.makeClient().fetchDevices().devices
        try #require(devices.count == 4)
        #expect(devices[0].realtime.mode == 3)
        #expect(devices[0].hasAlarm == false)
        #expect(devices[0].connected == true)

        #expect(devices[1].isOnBattery == true)
        #expect(devices[1].activeAlarms == ActiveAlarms(count: 1, codes: ["0x0011"],
                                                         alarms: [Alarm(code: "0x0011", name: "Utility power failure")]))

        #expect(devices[2].connected == false)
        var empty = RealtimeReadings()
        empty.faultCodeReported = true
        #expect(devices[2].realtime == empty) // all "" → all nil
        #expect(devices[2].hasFault == nil)
        #expect(devices[2].config.ratingVa == 3000)

        #expect(devices[3].realtime.faultCode == "0B")
        #expect(devices[3].realtime.status == 2)
        #expect(devices[3].activeAlarms?.codes == ["0x0107"])
        #expect(devices.map(\.asset.alias) == ["C3K", "Server room \"A\"", "C3K", "Rack\\B-2"])
    }

    /// `loadTotalWatt` of device i at simulated time t is exactly PowerCurve(deviceIndex: i).
    @Test func powerFollowsTheCurveOnTheInjectedClock() async throws {
        let harness = SimulatorHarness(devices: 6)
        let client = harness.makeClient()
        for seconds in [0, 5, 3600, 86_400 + 17] {
            harness.clock.advance(by: .seconds(seconds))
            let t = harness.simulator.simulatedSeconds
            let readout = try await client.fetchDevices()
            for (index, device) in readout.devices.enumerated() where harness.simulator.devices[index].role != .disconnected {
                #expect(device.realtime.loadTotalWatt == PowerCurve(deviceIndex: index).watts(at: t))
                #expect(device.realtime.loadTotalWatt == harness.simulator.devices[index].curve.watts(at: t))
            }
        }
    }
}
