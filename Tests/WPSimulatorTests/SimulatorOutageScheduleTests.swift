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
        let roles = try OutageWindow.parseList("3:20+15/batteryTest,0:0+600/disconnected")
        #expect(roles == [OutageWindow(device: 3, start: 20, length: 15, role: .batteryTest),
                          OutageWindow(device: 0, start: 0, length: 600, role: .disconnected)])
        // The description reads back as the same window.
        #expect(try OutageWindow.parseList(roles.map(\.description).joined(separator: ",")) == roles)
        let batteries = try OutageWindow.parseList("0:10+60~600,1:5+20~90.5/batteryTest")
        #expect(batteries == [OutageWindow(device: 0, start: 10, length: 60, runtime: 600),
                              OutageWindow(device: 1, start: 5, length: 20, role: .batteryTest, runtime: 90.5)])
        #expect(try OutageWindow.parseList(batteries.map(\.description).joined(separator: ",")) == batteries)
        for bad in ["2", "2+0", "-1+3", "x:2+3", "2+3+4", "2+nan", "1:", "99999:1+2", "2+3/flying", "2+3/", "2/batteryTest+3",
                    "2+3~", "2+3~0", "2+3~-5", "2+3~x", "2~5+3"] {
            #expect(throws: SimulatorError.badOutageSchedule(bad)) { try OutageWindow.parseList(bad) }
        }
        #expect(SimulatorError.badOutageSchedule("2").description.contains("[DEVICE:]START+LENGTH[~RUNTIME][/ROLE]"))
        #expect(SimulatorError.badOutageSchedule("2+3/flying").description.contains("batteryTest"))
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

    /// `~RUNTIME`: the charge falls from 100 % at the window's start by 100 % per RUNTIME seconds
    /// (5 % at the least), while WinPower's predicted runtime stays the nominal 75 s a percent.
    @Test func aWindowsBatteryDeliversItsRuntime() async throws {
        let harness = SimulatorHarness {
            $0.password = "s3cr3t-Pa55"
            $0.deviceCount = 1
            $0.outageSchedule = [OutageWindow(start: 10, length: 100, runtime: 200)]
        }
        func charge() async throws -> (Double, Double) {
            let response = try await harness.simulator.handle(listRequest(token: try await token(harness.simulator)))
            let devices = try #require(try json(response)["data"] as? [[String: Any]])
            let realtime = try #require(devices.first?["realtime"] as? [String: Any])
            return (Double(realtime["batCapacity"] as? String ?? "") ?? -1, Double(realtime["batRemainTime"] as? String ?? "") ?? -1)
        }
        #expect(try await charge() == (100, 7_500))
        harness.clock.advance(by: .seconds(10))
        #expect(try await charge() == (100, 7_500))
        harness.clock.advance(by: .seconds(40))
        #expect(try await charge() == (80, 6_000))
        harness.clock.advance(by: .seconds(58))
        #expect(try await charge() == (51, 3_825))
        harness.clock.advance(by: .seconds(2))
        #expect(try await charge() == (100, 7_500))
    }

    /// A restart (`simulate` brought back up by SIGUSR2) is a restarted WinPower server: its
    /// time and schedule count from zero again, and a token issued before is refused.
    @Test func aRestartCountsTheScheduleFromZeroAndForgetsTheTokens() async throws {
        let harness = SimulatorHarness {
            $0.password = "s3cr3t-Pa55"
            $0.deviceCount = 1
            $0.outageSchedule = [OutageWindow(start: 2, length: 4)]
        }
        let before = try await token(harness.simulator)
        harness.clock.advance(by: .seconds(10))            // past the window: on line
        #expect(try await modes(harness) == ["3"])
        #expect(harness.simulator.simulatedSeconds == 10)
        harness.simulator.enable(.unreachable)
        harness.simulator.restart()
        #expect(harness.simulator.simulatedSeconds == 0)
        #expect(harness.simulator.faults.isEmpty, "the configuration's faults again")
        #expect(try await harness.simulator.handle(listRequest(token: before)).status == 401)
        harness.clock.advance(by: .seconds(3))             // inside the window again, counted from the restart
        #expect(try await modes(harness) == ["4"])
        harness.clock.advance(by: .seconds(4))
        #expect(try await modes(harness) == ["3"])
    }

    /// A window with another role scripts it: a self-test, then a disconnection, each ending
    /// in the device's own role.
    @Test func aWindowWithARoleScriptsThatRole() async throws {
        let harness = SimulatorHarness {
            $0.password = "s3cr3t-Pa55"
            $0.deviceCount = 2
            $0.outageSchedule = [OutageWindow(start: 1, length: 2, role: .batteryTest),
                                 OutageWindow(start: 4, length: 2, role: .disconnected)]
        }
        func connected() async throws -> [Bool] {
            let response = try await harness.simulator.handle(listRequest(token: try await token(harness.simulator)))
            return try #require(try json(response)["data"] as? [[String: Any]]).map { $0["connected"] as? Bool ?? false }
        }
        #expect(try await modes(harness) == ["3", "4"])
        harness.clock.advance(by: .seconds(1))
        #expect(try await modes(harness) == ["5", "4"])
        harness.clock.advance(by: .seconds(2))
        #expect(try await modes(harness) == ["3", "4"])
        harness.clock.advance(by: .seconds(1))
        #expect(try await modes(harness) == ["", "4"])
        #expect(try await connected() == [false, true])
        harness.clock.advance(by: .seconds(2))
        #expect(try await modes(harness) == ["3", "4"])
        #expect(try await connected() == [true, true])
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
