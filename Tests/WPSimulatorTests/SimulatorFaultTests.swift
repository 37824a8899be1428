import Foundation
import Testing
import WPTestThreads
import WPServer
import WPSimulator
import WPTestSupport
import WPRuntime

/// Each fault's raw effect on the handler, switched at run time.
@Suite(.ownThreads, .timeLimit(.minutes(3))) struct SimulatorFaultTests {
    @Test func faultNamesParse() throws {
        #expect(try WinPowerSimulator.Fault.parseList("slow, http-500,,") == [.slow, .http500])
        #expect(try WinPowerSimulator.Fault.parseList("") == [])
        #expect(Set(WinPowerSimulator.Fault.allCases.map(\.rawValue)).count == WinPowerSimulator.Fault.allCases.count)
        #expect(throws: SimulatorError.unknownFault("bogus")) { try WinPowerSimulator.Fault.parseList("slow,bogus") }
        #expect(SimulatorError.unknownFault("bogus").description.contains("malformed-json"))
    }

    @Test func faultsFromConfigurationAndAtRunTime() async throws {
        let harness = SimulatorHarness { $0.faults = [.http500] }
        #expect(try await harness.simulator.handle(loginRequest()).status == 500)
        harness.simulator.disable(.http500)
        #expect(try await harness.simulator.handle(loginRequest()).status == 200)
        harness.simulator.setFaults([.wrongCredentials, .http500])
        #expect(harness.simulator.faults == [.wrongCredentials, .http500])
    }

    @Test func unreachableThrows() async throws {
        let harness = SimulatorHarness()
        harness.simulator.enable(.unreachable)
        #expect(harness.simulator.isUnreachable)
        await #expect(throws: SimulatorError.unreachable) { try await harness.simulator.handle(loginRequest()) }
    }

    @Test func slowWaitsOnTheInjectedClock() async throws {
        let harness = SimulatorHarness { $0.slowDelay = .seconds(5) }
        harness.simulator.enable(.slow)
        async let response = harness.simulator.handle(loginRequest())
        await harness.clock.waitForSleepers(1)
        #expect(harness.simulator.counters.loginAttempts == 0)
        harness.clock.advance(by: .seconds(5))
        #expect(try await response.status == 200)
    }

    @Test func malformedAndTruncatedBodies() async throws {
        let harness = SimulatorHarness()
        let token = try await token(harness.simulator)
        let intact = try await harness.simulator.handle(listRequest(token: token)).body
        harness.simulator.enable(.truncatedBody)
        let truncated = try await harness.simulator.handle(listRequest(token: token)).body
        #expect(truncated == Array(intact.prefix(intact.count / 2)))
        harness.simulator.setFaults([.malformedJSON])
        let malformed = try await harness.simulator.handle(listRequest(token: token))
        #expect(malformed.status == 200)
        #expect((try? JSONSerialization.jsonObject(with: Data(malformed.body))) == nil)
    }

    @Test func unauthorizedAndEnvelope401() async throws {
        let harness = SimulatorHarness()
        let token = try await token(harness.simulator)
        harness.simulator.enable(.unauthorized)
        #expect(try await harness.simulator.handle(listRequest(token: token)).status == 401)
        harness.simulator.setFaults([.envelope401])
        let response = try await harness.simulator.handle(listRequest(token: token))
        #expect(response.status == 200)
        #expect(try json(response)["code"] as? String == "401")
    }

    @Test func earlyExpiryRejectsYoungTokens() async throws {
        let harness = SimulatorHarness { $0.earlyExpiryAge = .seconds(60) }
        harness.simulator.enable(.earlyExpiry)
        let token = try await token(harness.simulator)
        #expect(try jwtPayload(token)["exp"] as? Int == Int(harness.epoch.timeIntervalSince1970) + 1800)
        harness.clock.advance(by: .seconds(59))
        #expect(try await harness.simulator.handle(listRequest(token: token)).status == 200)
        harness.clock.advance(by: .seconds(1))
        #expect(try await harness.simulator.handle(listRequest(token: token)).status == 401)
    }

    @Test func malformedDeviceLacksItsID() async throws {
        let harness = SimulatorHarness(devices: 3)
        harness.simulator.enable(.malformedDevice)
        let body = try json(try await harness.simulator.handle(listRequest(token: try await token(harness.simulator))))
        let data = try #require(body["data"] as? [[String: Any]])
        #expect(data.count == 3)
        #expect((data[0]["assetDevice"] as? [String: Any])?["id"] == nil)
        #expect(body["total"] as? Int == 3)
    }

    @Test func wrongCredentialsRejectsTheRightPassword() async throws {
        let harness = SimulatorHarness()
        harness.simulator.enable(.wrongCredentials)
        #expect(try await harness.simulator.handle(loginRequest()).status == 401)
        #expect(harness.simulator.counters.logins == 0)
        #expect(harness.simulator.counters.loginAttempts == 1)
    }

    @Test func lyingTotal() async throws {
        let harness = SimulatorHarness(devices: 3)
        harness.simulator.setReportedTotal(99)
        let body = try json(try await harness.simulator.handle(listRequest(token: try await token(harness.simulator))))
        #expect(body["total"] as? Int == 99)
        harness.simulator.setReportedTotal(nil)
        let restored = try json(try await harness.simulator.handle(listRequest(token: try await token(harness.simulator))))
        #expect(restored["total"] as? Int == 3)
    }
}
