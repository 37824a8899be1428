import WPHTTPClient
import Foundation
import Testing
import WPTestThreads
import WPClient
import WPLogging
import WPSimulator
import WPTestSupport
import WPRuntime

/// Every simulator fault surfaces as the right typed error, and nothing secret leaks.
@Suite(.ownThreads, .timeLimit(.minutes(4))) struct ClientFaultTests {
    @Test func unreachableIsANetworkError() async throws {
        let harness = SimulatorHarness()
        harness.simulator.enable(.unreachable)
        let error = await clientError { try await harness.makeClient().fetchDevices() }
        #expect(error?.kind == .network)
        #expect(error?.message.contains("winpower.base_url") == true)
    }

    @Test func slowResponseTimesOutOnTheInjectedClock() async throws {
        let harness = SimulatorHarness { $0.slowDelay = .seconds(15) }
        harness.simulator.enable(.slow)
        let client = harness.makeClient { $0.apiTimeout = .seconds(10) }
        async let result = clientError { try await client.fetchDevices() }
        await harness.clock.waitForSleepers(2) // the simulator's delay and the request timeout
        harness.clock.advance(by: .seconds(10))
        let error = await result
        #expect(error?.kind == .timeout)
        #expect(harness.simulator.counters.loginAttempts == 0)
    }

    @Test func slowButInTimeSucceedsAndMeasuresTheResponseTime() async throws {
        let harness = SimulatorHarness { $0.slowDelay = .seconds(2) }
        harness.simulator.enable(.slow)
        let client = harness.makeClient()
        async let result = client.fetchDevices()
        for _ in 0..<2 { // login, then the list
            await harness.clock.waitForSleepers(2)
            harness.clock.advance(by: .seconds(2))
        }
        let readout = try await result
        #expect(readout.calls.map(\.seconds) == [2, 2])
    }

    @Test func overallBudgetLimitsTheCollection() async throws {
        let harness = SimulatorHarness { $0.slowDelay = .seconds(8) }
        harness.simulator.enable(.slow)
        let client = harness.makeClient {
            $0.apiTimeout = .seconds(10)
            $0.timeout = .seconds(15)
        }
        async let result = clientError { try await client.fetchDevices() }
        await harness.clock.waitForSleepers(2)
        harness.clock.advance(by: .seconds(8)) // login done at 8 s; 7 s of budget remain
        await harness.clock.waitForSleepers(2)
        harness.clock.advance(by: .seconds(7))
        let error = await result
        #expect(error?.kind == .timeout)
        #expect(harness.simulator.counters.logins == 1)
    }

    @Test func http500IsAnHTTPStatusError() async throws {
        let harness = SimulatorHarness()
        let client = harness.makeClient()
        _ = try await client.fetchDevices()
        harness.simulator.enable(.http500)
        let error = await clientError { try await client.fetchDevices() }
        #expect(error?.kind == .httpStatus)
        #expect(error?.status == 500)
        #expect(error?.apiCode == "500")
    }

    @Test(arguments: [WinPowerSimulator.Fault.malformedJSON, .truncatedBody])
    func brokenBodiesAreDecodeErrors(fault: WinPowerSimulator.Fault) async throws {
        let harness = SimulatorHarness()
        let client = harness.makeClient()
        _ = try await client.fetchDevices()
        harness.simulator.enable(fault)
        let error = await clientError { try await client.fetchDevices() }
        #expect(error?.kind == .decode)
        #expect(error?.message.contains("at byte") == true)
        harness.expectNoSecrets(in: error?.description ?? "")
        #expect(error?.description.contains("assetDevice") == false) // no body text
    }

    @Test func brokenLoginBodyIsADecodeError() async throws {
        let harness = SimulatorHarness()
        harness.simulator.enable(.truncatedBody)
        let error = await clientError { try await harness.makeClient().fetchDevices() }
        #expect(error?.kind == .decode)
    }

    @Test func errorEnvelopeIsAnAPICodeError() async throws {
        let harness = SimulatorHarness()
        let client = harness.makeClient(transport: StubTransport.loggingIn(
            token: "t", list: #"{"code":"INVALID_AREA","msg":"bad area","data":null}"#))
        let error = await clientError { try await client.fetchDevices() }
        #expect(error?.kind == .apiCode)
        #expect(error?.apiCode == "INVALID_AREA")
        #expect(error?.message.contains("bad area") == true)
    }

    @Test func loginEnvelopeErrorIsAnAuthErrorWithItsCode() async throws {
        let harness = SimulatorHarness()
        let client = harness.makeClient(transport: StubTransport { _ in
            TransportResponse(status: 200, body: Array(#"{"code":"USER_LOCKED","message":"locked","data":null}"#.utf8))
        })
        let error = await clientError { try await client.fetchDevices() }
        #expect(error?.kind == .auth)
        #expect(error?.apiCode == "USER_LOCKED")
    }

    /// 404, 405 and 413 at login mean something else listens at winpower.base_url: the error
    /// says what to check; other statuses carry no guess.
    @Test(arguments: [(404, "check the port and path of winpower.base_url"), (405, "points at the WinPower G2 API"),
                      (413, "probably not the WinPower G2 API"), (502, nil)] as [(Int, String?)])
    func unexpectedLoginStatusesSayWhatToCheck(status: Int, hint: String?) async throws {
        let harness = SimulatorHarness()
        let client = harness.makeClient(transport: StubTransport { _ in
            TransportResponse(status: status, body: Array("<html>not here</html>".utf8))
        })
        let error = try #require(await clientError { try await client.fetchDevices() })
        #expect(error.kind == .httpStatus)
        #expect(error.message.hasPrefix("login answered HTTP \(status)"))
        if let hint {
            #expect(error.message.contains(hint), "\(error.message)")
        } else {
            #expect(error.message == "login answered HTTP \(status)")
        }
    }

    @Test func malformedDeviceIsDroppedAndReported() async throws {
        let harness = SimulatorHarness(devices: 3)
        harness.simulator.enable(.malformedDevice)
        let readout = try await harness.makeClient().fetchDevices()
        #expect(readout.devices.map(\.id) == harness.simulator.devices.dropFirst().map(\.id))
        #expect(readout.dropped == [DroppedDevice(page: 1, index: 0, reason: "assetDevice.id missing or empty")])
        #expect(readout.isComplete) // the object was listed, just unusable
        #expect(harness.sink.records.contains { $0.message == "device dropped" && $0.level == .warn })
    }

    @Test func aDroppedDeviceIsLoggedOnceUntilItComesBack() async throws {
        let harness = SimulatorHarness(devices: 3)
        harness.simulator.enable(.malformedDevice)
        let client = harness.makeClient()
        func drops() -> Int { harness.sink.records.filter { $0.message == "device dropped" }.count }
        for _ in 0..<3 { #expect(try await client.fetchDevices().dropped.count == 1) }
        #expect(drops() == 1, "the same drop is not logged again at every collection")
        harness.simulator.disable(.malformedDevice)
        #expect(try await client.fetchDevices().dropped.isEmpty)
        #expect(harness.sink.records.contains { $0.message == "dropped devices no longer dropped" && $0.level == .info })
        harness.simulator.enable(.malformedDevice)
        _ = try await client.fetchDevices()
        #expect(drops() == 2, "dropped again after coming back: logged again")
    }

    @Test func wrongCredentialsFaultIsAnAuthError() async throws {
        let harness = SimulatorHarness()
        harness.simulator.enable(.wrongCredentials)
        let error = await clientError { try await harness.makeClient().fetchDevices() }
        #expect(error?.kind == .auth)
    }

    @Test func tokensExpiringEarlyAreRenewedTransparently() async throws {
        let harness = SimulatorHarness { $0.earlyExpiryAge = .seconds(30) }
        harness.simulator.enable(.earlyExpiry)
        let client = harness.makeClient()
        for _ in 0..<3 {
            #expect(try await client.fetchDevices().devices.count == 3)
            harness.clock.advance(by: .seconds(31))
        }
        #expect(harness.simulator.counters.logins == 3)
    }

    /// Drives every path that handles a secret with debug logging on, then searches all logs
    /// and error descriptions for the password and every token.
    @Test func secretsNeverAppearInLogsOrErrors() async throws {
        let harness = SimulatorHarness(devices: 3) { $0.earlyExpiryAge = .seconds(10) }
        let client = harness.makeClient()
        var descriptions: [String] = []
        _ = try await client.fetchDevices()
        harness.simulator.enable(.earlyExpiry)
        harness.clock.advance(by: .seconds(11))
        _ = try await client.fetchDevices()
        for fault in WinPowerSimulator.Fault.allCases where fault != .slow {
            harness.simulator.setFaults([fault])
            harness.clock.advance(by: .seconds(400))
            if let error = try? await client.fetchDevices() { descriptions.append("\(error)") }
            do { _ = try await client.fetchDevices() } catch { descriptions.append("\(error)") }
        }
        let wrong = harness.makeClient { $0.password = "another-Secret-9" }
        do { _ = try await wrong.fetchDevices() } catch { descriptions.append("\(error)") }

        #expect(harness.simulator.issuedTokens.count >= 2)
        #expect(harness.sink.records.contains { $0.fields["body_preview"] != nil })
        let everything = harness.sink.allText + "\n" + descriptions.joined(separator: "\n")
        harness.expectNoSecrets(in: everything)
        #expect(!everything.contains("another-Secret-9"))
        #expect(!everything.contains(harness.simulator.configuration.username + "\""))
        #expect(!"\(harness.clientConfiguration)".contains(harness.simulator.configuration.password))
    }

    @Test func bodyPreviewMasksSecretsAndTruncates() {
        let body = #"{"code":"000000","data":{"token":"abc.def","password" : "p\"w"},"x":"eyJhbGciOi.eyJleHAi.sig"}"#
        let preview = BodyPreviewProbe.masked(body)
        #expect(!preview.contains("abc.def"))
        #expect(!preview.contains("p\\\"w"))
        #expect(!preview.contains("eyJ"))
        #expect(preview.contains("\"token\":\"***\""))
        #expect(BodyPreviewProbe.masked(String(repeating: "a", count: 1000)).count == 257)
    }

    @Test func bodyPreviewMatchesSecretKeysIgnoringCase() {
        let body = #"{"PassWord":"hunter2","TOKEN" : "t0k","Secret":"s3","paſſword":"long-s","passwords":"kept"}"#
        let preview = BodyPreviewProbe.masked(body)
        for secret in ["hunter2", "t0k", "s3", "long-s"] { #expect(!preview.contains(secret), "\(secret)") }
        #expect(preview.contains("\"PassWord\":\"***\""))
        #expect(preview.contains("\"TOKEN\" : \"***\""))
        #expect(preview.contains("\"passwords\":\"kept\""))
    }
}
