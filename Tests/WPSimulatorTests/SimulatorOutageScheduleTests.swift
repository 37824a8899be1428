import Foundation
import Testing
import WPTestThreads
import WPServer
import WPSimulator
import WPTestSupport
import WPRuntime

/// `--outage-schedule`: scripted mains failures on the simulator's clock.
@Suite(.ownThreads, .timeLimit(.minutes(3))) struct SimulatorOutageScheduleTests {
    @Test func windowsParse() throws {
        #expect(try OutageWindow.parseList("2+4, 1:10.5+3,,") == [OutageWindow(start: 2, length: 4),
                                                                  OutageWindow(device: 1, start: 10.5, length: 3)])
        for bad in ["2", "2+0", "-1+3", "x:2+3", "2+3+4", "2+nan", "1:", "99999:1+2"] {
            #expect(throws: SimulatorError.badOutageSchedule(bad)) { try OutageWindow.parseList(bad) }
        }
        #expect(SimulatorError.badOutageSchedule("2").description.contains("[DEVICE:]START+LENGTH"))
    }

    /// The `mode` of each listed device at the harness clock's current time.
    func modes(_ harness: SimulatorHarness) async throws -> [String] {
        let response = try await harness.simulator.handle(listRequest(token: try await token(harness.simulator)))
        let devices = try #require(try json(response)["data"] as? [[String: Any]])
        return devices.map { (($0["realtime"] as? [String: Any])?["mode"] as? String) ?? "?" }
    }

    @Test func aDeviceInAWindowIsOnBatteryAndReturnsToItsRoleAfter() async throws {
        let harness = SimulatorHarness {
            $0.password = "s3cr3t-Pa55"
            $0.deviceCount = 3
            $0.outageSchedule = [OutageWindow(start: 2, length: 4), OutageWindow(device: 2, start: 0, length: 100)]
        }
        // Device 2 is disconnected in its own role: a window does not reconnect it.
        #expect(try await modes(harness) == ["3", "4", ""])
        harness.clock.advance(by: .seconds(2))
        #expect(try await modes(harness) == ["4", "4", ""])
        harness.clock.advance(by: .seconds(3.5))
        #expect(try await modes(harness) == ["4", "4", ""])
        harness.clock.advance(by: .seconds(0.5))
        #expect(try await modes(harness) == ["3", "4", ""])
    }
}
