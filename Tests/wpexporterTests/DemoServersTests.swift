import Testing
import WPTestThreads
import WPConfig
import WPSimulator
@testable import wpexporter

/// `wpexporter demo --servers N`.
@Suite(.ownThreads, .timeLimit(.minutes(3))) struct DemoServersTests {
    @Test func serversIsADemoFlagFrom1To64() throws {
        #expect(try CommandParser.parse(["demo"]) == .demo(ConfigurationOptions()))
        #expect(try CommandParser.parse(["demo", "--servers", "3"]) == .demo(ConfigurationOptions(demoServers: 3)))
        #expect(try CommandParser.parse(["demo", "--servers=64"]) == .demo(ConfigurationOptions(demoServers: 64)))
        for bad in ["0", "65", "x", "-1"] {
            #expect(throws: UsageError(command: "demo", message: "--servers must be a whole number from 1 to 64, not \"\(bad)\"")) {
                try CommandParser.parse(["demo", "--servers=\(bad)"])
            }
        }
        #expect(throws: UsageError.self) { try CommandParser.parse(["server", "--servers", "3"]) }
    }

    @Test func theFleetHasOneDownServerLast() async throws {
        var simulator = WinPowerSimulator.Configuration()
        simulator.deviceCount = 1
        let first = SimulatorServer(simulator: WinPowerSimulator(configuration: simulator))
        let address = try await first.start()
        var winPower = ExporterConfiguration().winPower
        winPower.username = "demo"
        let fleet = try await RuntimeCommands.demoFleet(count: 3, first: address, simulator: simulator, winPower: winPower)
        #expect(fleet.entries.map(\.name) == ["wp-1", "wp-2", "wp-3"])
        #expect(fleet.entries[0].winPower.baseURL == RuntimeCommands.url(address))
        #expect(fleet.entries.allSatisfy { $0.winPower.username == "demo" })
        #expect(fleet.simulators.count == 1)
        #expect(fleet.down == "wp-3")
        #expect(try await RuntimeCommands.demoFleet(count: 1, first: address, simulator: simulator, winPower: winPower).entries.isEmpty)
        for server in fleet.simulators { await server.stop() }
        await first.stop()
    }

    @Test func theTableKeysDevicesByServerAndDevice() {
        let text = """
        winpower_device_load_total_watts{server="a",device_id="ups-1",device_name="A",device_type="1"} 100
        winpower_device_load_total_watts{server="b",device_id="ups-1",device_name="A",device_type="1"} 200

        """
        let rows = DemoTable.rows(Array(text.utf8))
        #expect(rows.map(\.name) == ["a/A", "b/A"])
        #expect(rows.map { $0.values["load_total_watts"] } == [100, 200])
    }
}
