import Foundation
import Synchronization
import Testing
import WPTestThreads
@testable import WPClient
import WPSimulator
import WPTestSupport
import WPRuntime
import WPWallClock

/// The token lifetime comes from the server's own claims, counted on our monotonic clock from
/// receipt: never from comparing a claim with our wall clock.
@Suite(.ownThreads, .timeLimit(.minutes(4))) struct TokenLifetimeTests {
    static let skews: [Double] = [-86_400, -3600, 0, 3600, 86_400]

    @Test(arguments: [false, true], skews)
    func realClaimSetGivesItsLifetimeWhateverTheServerClock(expInMilliseconds: Bool, skew: Double) async throws {
        for typ in [false, true] {
            let harness = SimulatorHarness()
            let token = TokenFactory.real(issued: harness.epoch.addingTimeInterval(skew), lifetime: 1800,
                                          expInMilliseconds: expInMilliseconds, typ: typ)
            let logins = Mutex(0)
            let client = harness.makeClient(transport: StubTransport.loggingIn(token: token) { logins.withLock { $0 += 1 } })
            let readout = try await client.fetchDevices()
            #expect(readout.tokenExpiry == harness.epoch.addingTimeInterval(1800), "typ \(typ)")
            harness.clock.advance(by: .seconds(1499))
            let later = try await client.fetchDevices()
            #expect(logins.withLock { $0 } == 1, "reused until refresh_threshold (300 s) before expiry")
            let remaining = try #require(later.tokenExpiry).timeIntervalSince(harness.wallClock.now)
            #expect(remaining == 301, "winpower_token_expiry_seconds is the real remaining lifetime")
            harness.clock.advance(by: .seconds(1))
            _ = try await client.fetchDevices()
            #expect(logins.withLock { $0 } == 2)
        }
    }

    @Test(arguments: ["login-response", "login-response-newer-build"])
    func bothRealSampleTokensLiveThirtyMinutes(sample: String) async throws {
        let reply = try DeviceListDecoder().decodeLogin(try DecoderSampleTests.fixture(sample))
        let token = try #require(reply.token)
        let harness = SimulatorHarness() // our clock is months away from the samples' iat
        let readout = try await harness.makeClient(transport: StubTransport.loggingIn(token: token)).fetchDevices()
        #expect(readout.tokenExpiry == harness.epoch.addingTimeInterval(1800))
    }

    @Test func claimsAreTriedInOrderAndCapped() {
        let fallback = Duration.seconds(1800)
        func lifetime(_ claims: TokenClaims) -> (Duration, TokenClaims.Source) {
            let result = claims.lifetime(fallback: fallback)
            return (result.lifetime, result.source)
        }
        #expect(lifetime(TokenClaims(exp: 1_760_367_613, iat: 1_760_365_813, expiredMinutes: 5)) == (.seconds(1800), .expIat))
        #expect(lifetime(TokenClaims(exp: 1_760_367_613_000, iat: 1_760_366_813)) == (.seconds(800), .expIat))
        #expect(lifetime(TokenClaims(exp: 1_760_367_613, createTime: 1_000, expireTime: 21_000)) == (.seconds(20), .timeKeys))
        #expect(lifetime(TokenClaims(exp: 1, iat: 2, expiredMinutes: 20)) == (.seconds(1200), .expiredMinutes))
        #expect(lifetime(TokenClaims(expiredMinutes: 60 * 48)) == (.seconds(86_400), .expiredMinutes))
        #expect(lifetime(TokenClaims(exp: 1_760_367_613)) == (fallback, .assumed), "exp alone needs our wall clock: ignored")
        #expect(lifetime(TokenClaims()) == (fallback, .assumed))
    }

    @Test func renewalIsAtMostHalfTheLifetimeBeforeExpiry() {
        let token = SessionToken(value: "t", receivedAt: .seconds(100), wallNow: Date(timeIntervalSince1970: 0),
                                 lifetime: .seconds(20), refreshThreshold: .seconds(300), source: .expIat)
        #expect(token.renewAt == .seconds(110))
        #expect(token.expiresAt == .seconds(120))
    }

    /// A server an hour behind issuing 20 s tokens, collected every 5 s for 5 minutes: with a
    /// refresh threshold below the interval, one login per token lifetime; with the 5 m default
    /// (capped at half the lifetime), one per half lifetime. No failed collection, no 401.
    @Test(arguments: [false, true], [2, 300])
    func serverClockAnHourBehindWithShortTokens(expInMilliseconds: Bool, threshold: Int) async throws {
        let harness = SimulatorHarness { configuration in
            configuration.tokenLifetime = .seconds(20)
            configuration.clockSkew = .seconds(-3600)
            configuration.tokenExpInMilliseconds = expInMilliseconds
        }
        let client = harness.makeClient { $0.refreshThreshold = .seconds(threshold) }
        for _ in 0..<60 {
            let readout = try await client.fetchDevices()
            let remaining = try #require(readout.tokenExpiry).timeIntervalSince(harness.wallClock.now)
            #expect(remaining > 0 && remaining <= 20)
            harness.clock.advance(by: .seconds(5))
        }
        // 300 s of 20 s tokens, each used until its renewal point (18 s or 10 s after receipt).
        #expect(harness.simulator.counters.logins <= (threshold < 5 ? 300 / 20 : 300 / 10) + 1)
        #expect(harness.simulator.counters.unauthorized == 0)
    }

    /// Newer builds' ms `exp` with real 30-minute tokens, for two hours: no 401 at all, and
    /// the reported expiry always within the real remaining lifetime.
    @Test func millisecondExpNeverCausesA401() async throws {
        let harness = SimulatorHarness { $0.tokenExpInMilliseconds = true }
        let client = harness.makeClient()
        var issued = harness.wallClock.now
        var lastLogin: Date?
        for _ in 0..<(7200 / 60) {
            let readout = try await client.fetchDevices()
            if readout.lastLogin != lastLogin { issued = harness.wallClock.now; lastLogin = readout.lastLogin }
            let remaining = try #require(readout.tokenExpiry).timeIntervalSince(harness.wallClock.now)
            let real = 1800 - harness.wallClock.now.timeIntervalSince(issued)
            #expect(remaining > 0 && remaining <= real)
            harness.clock.advance(by: .seconds(60))
        }
        #expect(harness.simulator.counters.unauthorized == 0)
        #expect(harness.simulator.counters.logins == 5) // renewed every 1500 s
    }
}
