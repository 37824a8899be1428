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

    /// `--frozen`: the list is the same whenever it is asked for, its outage windows included
    /// (second 0); without it the readings move with the clock.
    @Test func frozenReadingsNeverMove() async throws {
        func list(_ harness: SimulatorHarness) async throws -> [[String: Any]] {
            let response = try await harness.simulator.handle(listRequest(token: try await token(harness.simulator)))
            return try #require(try json(response)["data"] as? [[String: Any]])
        }
        func readings(_ devices: [[String: Any]]) -> [String] {
            devices.map { device in
                let realtime = device["realtime"] as? [String: Any] ?? [:]
                return realtime.keys.sorted().map { "\($0)=\(realtime[$0] ?? "")" }.joined(separator: ",")
            }
        }
        let frozen = SimulatorHarness {
            $0.password = "s3cr3t-Pa55"
            $0.deviceCount = 3
            $0.frozenReadings = true
            $0.outageSchedule = [OutageWindow(start: 2, length: 4)]
        }
        let first = readings(try await list(frozen))
        frozen.clock.advance(by: .seconds(3))
        #expect(readings(try await list(frozen)) == first, "the window at 2-6 s does not apply: time stays at 0")
        frozen.clock.advance(by: .seconds(1_000))
        #expect(readings(try await list(frozen)) == first)
        #expect(try await modes(frozen) == ["3", "4", ""])

        let moving = SimulatorHarness {
            $0.password = "s3cr3t-Pa55"
            $0.deviceCount = 3
        }
        let start = readings(try await list(moving))
        moving.clock.advance(by: .seconds(1_000))
        #expect(readings(try await list(moving)) != start)
    }
}
