import WPHTTPClient
import Foundation
import Synchronization
import Testing
import WPTestThreads
@testable import WPClient
import WPLogging
import WPServer
import WPSimulator
import WPTestSupport
import WPRuntime

/// Login, token lifetime, single flight, re-login and backoff, against the in-process simulator.
@Suite(.ownThreads, .timeLimit(.minutes(4))) struct ClientSessionTests {
    @Test func firstFetchLogsInWithTheDocumentedRequests() async throws {
        let harness = SimulatorHarness(devices: 3)
        let client = harness.makeClient { $0.userAgent = "wpexporter/1.2.3" }
        let readout = try await client.fetchDevices()

        #expect(readout.devices.count == 3)
        #expect(readout.devices.map(\.id) == harness.simulator.devices.map(\.id))
        #expect(readout.isComplete)
        #expect(harness.simulator.counters.logins == 1)
        #expect(harness.simulator.counters.listCalls == 1)
        #expect(readout.lastLogin == harness.epoch)
        #expect(readout.tokenExpiry == harness.epoch.addingTimeInterval(1800))
        #expect(readout.calls.map(\.endpoint) == [.login, .deviceList])
        #expect(readout.calls.map(\.status) == [200, 200])

        let login = try #require(harness.simulator.lastLoginRequest)
        #expect(login.method == "POST")
        #expect(login.path == "/api/v1/auth/login")
        #expect(login.headers["Accept"] == "application/json, text/plain, */*")
        #expect(login.headers["Content-Type"] == "application/json")
        #expect(login.headers["Content-language"] == "en")
        #expect(login.headers["User-Agent"] == "wpexporter/1.2.3")
        let list = try #require(harness.simulator.lastListRequest)
        #expect(list.path == "/api/v1/deviceData/detail/list")
        #expect(list.queryValue("current") == "1")
        #expect(list.queryValue("pageNum") == "1")
        #expect(list.queryValue("pageSize") == "100")
        #expect(list.queryValue("deviceType") == "1")
        #expect(list.queryValue("includeSubArea") == "true")
        #expect(list.queryValue("areaId") == "00000000-0000-0000-0000-000000000000")
        #expect(list.headers["Content-language"] == "zh-CN")
        #expect(list.headers["Authorization"] == "Bearer \(harness.simulator.issuedTokens.first ?? "?")")
    }

    @Test func tokenIsReusedAndRenewedRefreshThresholdBeforeExpiry() async throws {
        let harness = SimulatorHarness() // tokens live 1800 s
        let client = harness.makeClient { $0.refreshThreshold = .seconds(300) }
        _ = try await client.fetchDevices()
        harness.clock.advance(by: .seconds(1499))
        _ = try await client.fetchDevices()
        #expect(harness.simulator.counters.logins == 1)
        harness.clock.advance(by: .seconds(1))
        let readout = try await client.fetchDevices()
        #expect(harness.simulator.counters.logins == 2)
        #expect(harness.simulator.counters.unauthorized == 0)
        #expect(readout.lastLogin == harness.epoch.addingTimeInterval(1500))
        #expect(readout.tokenExpiry == harness.epoch.addingTimeInterval(3300))
    }

    @Test func failedRenewalKeepsUsingTheLiveToken() async throws {
        let harness = SimulatorHarness()
        let client = harness.makeClient()
        _ = try await client.fetchDevices()
        harness.clock.advance(by: .seconds(1600)) // inside the renewal window, before expiry
        harness.simulator.enable(.wrongCredentials)
        let readout = try await client.fetchDevices()
        #expect(readout.devices.count == 3)
        #expect(harness.simulator.counters.loginAttempts == 2)
        _ = try await client.fetchDevices() // backing off: still served with the live token
        #expect(harness.simulator.counters.loginAttempts == 2)
        harness.clock.advance(by: .seconds(200)) // expired now: the failure surfaces
        #expect(await clientError { try await client.fetchDevices() }?.kind == .auth)
    }

    @Test func tokenWithoutClaimsLivesThirtyMinutes() async throws {
        let logins = Mutex(0)
        let transport = StubTransport.loggingIn(token: "opaque", onLogin: { logins.withLock { $0 += 1 } })
        let harness = SimulatorHarness()
        let client = harness.makeClient(transport: transport)
        let readout = try await client.fetchDevices()
        #expect(readout.tokenExpiry == harness.epoch.addingTimeInterval(1800))
        harness.clock.advance(by: .seconds(1499))
        _ = try await client.fetchDevices()
        #expect(logins.withLock { $0 } == 1)
        harness.clock.advance(by: .seconds(1))
        _ = try await client.fetchDevices()
        #expect(logins.withLock { $0 } == 2)
    }

    @Test(arguments: ["1e300", "9.3e18", "1e400", "-1e300"])
    func absurdJWTExpiryIsBoundedNotFatal(exp: String) async throws {
        let token = TokenFactory.jwt(payload: "{\"exp\":\(exp),\"iat\":1760365813}")
        let harness = SimulatorHarness()
        let readout = try await harness.makeClient(transport: StubTransport.loggingIn(token: token)).fetchDevices()
        let lifetime = try #require(readout.tokenExpiry).timeIntervalSince(harness.epoch)
        if exp.hasPrefix("-") || exp == "1e400" {
            #expect(lifetime == 1800, "an exp before iat, or not a finite number, is ignored: the default lifetime")
        } else {
            #expect(lifetime == 86_400, "a far-future exp is capped at 24 h")
        }
    }

    @Test func eachSessionTokenIsMaskedByTheLoggersRedactorReplacingThePrevious() async throws {
        let harness = SimulatorHarness()
        let sink = InMemoryLogSink()
        let logger = sink.logger(label: "client")
        let client = WinPowerHTTPClient(configuration: harness.clientConfiguration,
                                        transport: InProcessTransport(handler: harness.simulator, clock: harness.clock),
                                        clock: harness.clock, wallClock: harness.wallClock, logger: logger)
        _ = try await client.fetchDevices()
        let first = try #require(harness.simulator.issuedTokens.first)
        logger.info("echo \(first)", ["value": .string(first)]) // a field name the key rule does not mask
        harness.clock.advance(by: .seconds(1500))             // renewal
        _ = try await client.fetchDevices()
        #expect(harness.simulator.issuedTokens.count == 2)
        let second = try #require(harness.simulator.issuedTokens.first { $0 != first }) // issuedTokens is unordered
        logger.info("echo \(second)", ["value": .string(second)])
        #expect(!sink.allText.contains(first) && !sink.allText.contains(second))
        #expect(logger.redactor.secretCount == 1, "the renewed token replaced the old one")
    }

    /// Several servers' clients share the process's redactor: each masks its own token, so one
    /// server's login never unmasks another's token.
    @Test func clientsSharingARedactorEachKeepTheirOwnTokenMasked() async throws {
        let (one, two) = (SimulatorHarness(), SimulatorHarness())
        two.clock.advance(by: .seconds(7)) // a later login: another token
        let sink = InMemoryLogSink()
        let logger = sink.logger(label: "client")
        var clients: [WinPowerHTTPClient] = []
        for harness in [one, two] {
            let client = WinPowerHTTPClient(configuration: harness.clientConfiguration,
                                            transport: InProcessTransport(handler: harness.simulator, clock: harness.clock),
                                            clock: harness.clock, wallClock: harness.wallClock, logger: logger)
            _ = try await client.fetchDevices()
            clients.append(client)
        }
        let tokens = [one, two].compactMap { $0.simulator.issuedTokens.first }
        #expect(tokens.count == 2 && tokens[0] != tokens[1])
        for token in tokens { logger.info("echo \(token)", ["value": .string(token)]) }
        #expect(!tokens.contains { sink.allText.contains($0) }, "a server's token appeared in the log")
        #expect(clients.count == 2) // both clients live (and mask) until here
    }

    /// A rotated password handed to the running client (a configuration reload) is used by the
    /// very next collection: the old session and the login backoff are dropped.
    @Test func updatedCredentialsAreUsedByTheNextLoginWithoutWaitingForTheBackoff() async throws {
        let harness = SimulatorHarness()
        var configuration = harness.clientConfiguration
        let password = configuration.password
        configuration.password = "rotated-away"
        let client = WinPowerHTTPClient(configuration: configuration,
                                        transport: InProcessTransport(handler: harness.simulator, clock: harness.clock),
                                        clock: harness.clock, wallClock: harness.wallClock, logger: .disabled)
        await #expect(throws: ClientError.self) { _ = try await client.fetchDevices() }
        await #expect(throws: ClientError.self, "within the login backoff") { _ = try await client.fetchDevices() }
        await client.updateCredentials(username: configuration.username, password: password)
        let readout = try await client.fetchDevices()
        #expect(!readout.devices.isEmpty)
    }

    @Test func twentyConcurrentFetchesShareOneLogin() async throws {
        let harness = SimulatorHarness(devices: 5)
        let client = harness.makeClient()
        let counts = try await withThrowingTaskGroup(of: Int.self) { group in
            for _ in 0..<20 { group.addTask { try await client.fetchDevices().devices.count } }
            return try await group.reduce(into: [Int]()) { $0.append($1) }
        }
        #expect(counts == Array(repeating: 5, count: 20))
        #expect(harness.simulator.counters.logins == 1)
        #expect(harness.simulator.counters.loginAttempts == 1)
        #expect(harness.simulator.counters.listCalls == 20)
    }

    @Test func http401LeadsToOneReloginAndSuccess() async throws {
        let harness = SimulatorHarness()
        let client = harness.makeClient()
        _ = try await client.fetchDevices()
        harness.simulator.enable(.earlyExpiry) // tokens older than 60 s are rejected
        harness.clock.advance(by: .seconds(61))
        let readout = try await client.fetchDevices()
        #expect(readout.devices.count == 3)
        #expect(harness.simulator.counters.logins == 2)
        #expect(harness.simulator.counters.unauthorized == 1)
        #expect(readout.calls.map(\.status) == [401, 200, 200])
    }

    @Test func envelopeCode401LeadsToOneReloginAndSuccess() async throws {
        let harness = SimulatorHarness()
        let first = Mutex(true)
        let transport = RewritingTransport(base: InProcessTransport(handler: harness.simulator, clock: harness.clock), rewriteResponse: { request, response in
            guard request.url.path.hasSuffix("/list"), first.withLock({ let was = $0; $0 = false; return was }) else { return response }
            return TransportResponse(status: 200, body: Array(#"{"code":"401","message":"没有登录或者令牌过期","data":"Full authentication is required to access this resource(/api/v1/deviceData/detail/list)"}"#.utf8)) // the real 401 envelope, at HTTP 200
        })
        let client = harness.makeClient(transport: transport)
        let readout = try await client.fetchDevices()
        #expect(readout.devices.count == 3)
        #expect(harness.simulator.counters.logins == 2)
        #expect(harness.simulator.counters.listCalls == 2)
    }

    @Test(arguments: [WinPowerSimulator.Fault.unauthorized, .envelope401])
    func persistent401ReloginsOnlyOnceThenFails(fault: WinPowerSimulator.Fault) async throws {
        let harness = SimulatorHarness()
        harness.simulator.enable(fault)
        let client = harness.makeClient()
        let error = await clientError { try await client.fetchDevices() }
        #expect(error?.kind == .auth)
        #expect(harness.simulator.counters.logins == 2)
        #expect(harness.simulator.counters.listCalls == 2)
    }

    @Test func wrongPasswordIsAnAuthErrorAndBacksOff() async throws {
        let harness = SimulatorHarness()
        let client = harness.makeClient { $0.password = "wrong-password" }
        let error = await clientError { try await client.fetchDevices() }
        #expect(error?.kind == .auth)
        #expect(error?.status == 401)
        #expect(error?.message.contains("winpower.password") == true)
        #expect(harness.simulator.counters.loginAttempts == 1)

        // Within the 1 s backoff the server is not asked again.
        #expect(await clientError { try await client.fetchDevices() }?.kind == .auth)
        #expect(harness.simulator.counters.loginAttempts == 1)
        harness.clock.advance(by: .seconds(1))
        _ = await clientError { try await client.fetchDevices() }
        #expect(harness.simulator.counters.loginAttempts == 2)
        // Now 2 s.
        harness.clock.advance(by: .seconds(1))
        _ = await clientError { try await client.fetchDevices() }
        #expect(harness.simulator.counters.loginAttempts == 2)
        harness.clock.advance(by: .seconds(1))
        _ = await clientError { try await client.fetchDevices() }
        #expect(harness.simulator.counters.loginAttempts == 3)
        #expect(harness.simulator.counters.listCalls == 0)
    }

    @Test func successfulLoginResetsTheBackoff() async throws {
        let harness = SimulatorHarness()
        harness.simulator.enable(.wrongCredentials)
        let client = harness.makeClient()
        for _ in 0..<3 {
            _ = await clientError { try await client.fetchDevices() }
            harness.clock.advance(by: .seconds(4))
        }
        #expect(harness.simulator.counters.loginAttempts == 3)
        harness.simulator.disable(.wrongCredentials)
        _ = try await client.fetchDevices()
        #expect(harness.simulator.counters.logins == 1)

        harness.simulator.enable(.wrongCredentials)
        harness.simulator.enable(.unauthorized) // forces a new login
        _ = await clientError { try await client.fetchDevices() }
        let attempts = harness.simulator.counters.loginAttempts
        harness.clock.advance(by: .seconds(1)) // back to the initial 1 s, not 8 s
        _ = await clientError { try await client.fetchDevices() }
        #expect(harness.simulator.counters.loginAttempts == attempts + 1)
    }

    @Test func backoffDoublesUpToFiveMinutes() {
        let delays = (1...12).map { WinPowerHTTPClient.backoff(after: $0, initial: .seconds(1), max: .seconds(300)) }
        #expect(delays == [1, 2, 4, 8, 16, 32, 64, 128, 256, 300, 300, 300].map { Duration.seconds($0) })
    }

    @Test(arguments: ["http://winpower.test:8081", "http://winpower.test:8081/"])
    func baseURLWithOrWithoutTrailingSlash(base: String) async throws {
        let harness = SimulatorHarness()
        let client = harness.makeClient { $0.baseURL = URL(string: base) ?? $0.baseURL }
        #expect(try await client.fetchDevices().devices.count == 3)
        #expect(harness.simulator.lastListRequest?.path == "/api/v1/deviceData/detail/list")
    }

    @Test(arguments: ["http://winpower.test/winpower", "http://winpower.test/winpower/"])
    func baseURLWithPathPrefix(base: String) async throws {
        let harness = SimulatorHarness { $0.pathPrefix = "/winpower" }
        let client = harness.makeClient { $0.baseURL = URL(string: base) ?? $0.baseURL }
        #expect(try await client.fetchDevices().devices.count == 3)
        #expect(harness.simulator.lastLoginRequest?.path == "/winpower/api/v1/auth/login")
    }
}
