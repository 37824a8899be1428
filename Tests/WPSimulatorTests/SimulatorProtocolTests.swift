import Foundation
import Testing
import WPTestThreads
import WPServer
import WPSimulator
import WPTestSupport
import WPRuntime

/// The simulator speaks WinPower's shapes: envelopes, 401 bodies, tokens, page cap.
@Suite(.ownThreads, .timeLimit(.minutes(3))) struct SimulatorProtocolTests {
    @Test func loginIssuesATokenWithTheRealClaimSet() async throws {
        let harness = SimulatorHarness()
        let response = try await harness.simulator.handle(loginRequest())
        #expect(response.status == 200)
        #expect(response.headers["Content-Type"] == "application/json")
        #expect(response.headers["X-Content-Type-Options"] == "nosniff")
        #expect(response.chunked)
        #expect(response.headers["Cache-Control"] == "no-cache, no-store, max-age=0, must-revalidate")
        let body = try json(response)
        #expect(body["code"] as? String == "000000")
        #expect(body["message"] as? String == "OK")
        let data = try #require(body["data"] as? [String: Any])
        #expect(data["deviceId"] as? String == harness.simulator.devices.first?.id)
        let token = try #require(data["token"] as? String)
        #expect(try jwtPayload(token, segment: 0) as? [String: String] == ["alg": "HS512"])
        let payload = try jwtPayload(token)
        #expect(Set(payload.keys) == ["create_time_key", "token_id", "login_user_type", "login_user_id", "expire_time_key",
                                      "tokenExpiredMinutes", "jti", "exp", "iat", "sub", "iss"])
        let exp = try #require(payload["exp"] as? Int)
        let iat = try #require(payload["iat"] as? Int)
        #expect(iat == Int(harness.epoch.timeIntervalSince1970))
        #expect(exp - iat == 1800)
        #expect(payload["expire_time_key"] as? Int == exp * 1000)
        #expect(payload["tokenExpiredMinutes"] as? Int == 30)
        #expect(payload["sub"] as? String == "WINPOWER_TOKEN" && payload["iss"] as? String == "WINPOWER")
        #expect(harness.simulator.counters.logins == 1)
    }

    @Test func newerBuildTokensCarryMillisecondExpInTheServersSkewedClock() async throws {
        let harness = SimulatorHarness {
            $0.tokenExpInMilliseconds = true
            $0.clockSkew = .seconds(-3600)
        }
        let token = try await token(harness.simulator)
        #expect(try jwtPayload(token, segment: 0) as? [String: String] == ["typ": "JWT", "alg": "HS512"])
        let payload = try jwtPayload(token)
        let issuedMs = Int(harness.epoch.timeIntervalSince1970 - 3600) * 1000
        #expect(payload["iat"] as? Int == issuedMs / 1000)
        #expect(payload["create_time_key"] as? Int == issuedMs)
        #expect(payload["exp"] as? Int == issuedMs + 1_800_000)
        #expect(payload["nbf"] as? Int == issuedMs + 5)
        // Expiry is the server's own business: the skewed claims do not shorten the token.
        harness.clock.advance(by: .seconds(1799))
        #expect(try await harness.simulator.handle(listRequest(token: token)).status == 200)
    }

    @Test func wrongCredentialsGetTheDocumented401() async throws {
        let harness = SimulatorHarness()
        let response = try await harness.simulator.handle(loginRequest(password: "nope"))
        #expect(response.status == 401)
        let body = try json(response)
        #expect(body["message"] as? String == "Authentication failed")
        #expect(body["data"] is NSNull)
        var expected = WinPowerSimulator.Counters()
        expected.loginAttempts = 1
        #expect(harness.simulator.counters == expected)
    }

    @Test func listWithoutAValidTokenGetsThe401Body() async throws {
        let harness = SimulatorHarness()
        for token in [nil, "forged"] {
            let response = try await harness.simulator.handle(listRequest(token: token))
            #expect(response.status == 401)
            #expect(String(decoding: response.body, as: UTF8.self)
                    == #"{"code":"401","message":"没有登录或者令牌过期","#
                    + #""data":"Full authentication is required to access this resource(/api/v1/deviceData/detail/list)"}"#)
        }
        #expect(harness.simulator.counters.unauthorized == 2)
    }

    @Test func tokensExpireAfterTheirLifetime() async throws {
        let harness = SimulatorHarness { $0.tokenLifetime = .seconds(600) }
        let token = try await token(harness.simulator)
        harness.clock.advance(by: .seconds(599))
        #expect(try await harness.simulator.handle(listRequest(token: token)).status == 200)
        harness.clock.advance(by: .seconds(1))
        #expect(try await harness.simulator.handle(listRequest(token: token)).status == 401)
    }

    @Test func pageSizeIsCappedAndPagesFollowEachOther() async throws {
        let harness = SimulatorHarness(devices: 45)
        let token = try await token(harness.simulator)
        var ids: [String] = []
        for page in 1...3 {
            let body = try json(try await harness.simulator.handle(listRequest(token: token, page: page)))
            #expect(body["total"] as? Int == 45)
            #expect(body["pageSize"] as? Int == 20)
            #expect(body["currentPage"] as? Int == page)
            #expect(body["code"] as? String == "000000")
            #expect(body["msg"] as? String == "OK")
            let data = try #require(body["data"] as? [[String: Any]])
            #expect(data.count == (page < 3 ? 20 : 5))
            ids += data.compactMap { ($0["assetDevice"] as? [String: Any])?["id"] as? String }
        }
        #expect(ids == harness.simulator.devices.map(\.id))
        #expect(harness.simulator.counters.listCalls == 3)
    }

    @Test func smallerRequestedPageSizeIsHonoured() async throws {
        let harness = SimulatorHarness(devices: 10)
        let token = try await token(harness.simulator)
        let body = try json(try await harness.simulator.handle(listRequest(token: token, pageSize: 4)))
        #expect(body["pageSize"] as? Int == 4)
        #expect((body["data"] as? [Any])?.count == 4)
    }

    @Test func unknownPathsAndMethods() async throws {
        let harness = SimulatorHarness()
        #expect(try await harness.simulator.handle(WPHTTPRequest(method: "GET", target: "/api/v2/x")).status == 404)
        #expect(try await harness.simulator.handle(WPHTTPRequest(method: "GET", target: "/api/v1/auth/login")).status == 405)
    }

    @Test func pathPrefixIsServed() async throws {
        let harness = SimulatorHarness { $0.pathPrefix = "/winpower/" }
        let plain = loginRequest()
        let prefixed = WPHTTPRequest(method: "POST", target: "/winpower/api/v1/auth/login", headers: plain.headers, body: plain.body)
        #expect(try await harness.simulator.handle(prefixed).status == 200)
        #expect(try await harness.simulator.handle(plain).status == 404)
    }
}
