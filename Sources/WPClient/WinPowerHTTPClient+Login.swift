import WPText
import WPHTTPClient
import FoundationEssentials
import WPLogging
import WPRuntime
import WPWallClock

extension WinPowerHTTPClient {
    /// A usable token: the cached one unless it is due for renewal or equals `stale` (just
    /// rejected by the server); otherwise the result of one shared login.
    func validToken(replacing stale: String?, deadline: Duration) async throws -> SessionToken {
        if let token, token.value != stale, elapsed() < token.renewAt { return token }
        if let stale, token?.value == stale { token = nil }
        do {
            if let loginInFlight { return try await loginInFlight.value }
            if let blockedUntil = loginBlockedUntil, elapsed() < blockedUntil {
                let wait = (blockedUntil - elapsed()).inSeconds
                throw ClientError(.auth, "login rejected \(failedLogins) time(s); not retrying for another "
                                       + "\(String(fixed: wait, fractionDigits: 1))s: check winpower.username and winpower.password")
            }
            let task = Task { try await self.login(deadline: deadline) }
            loginInFlight = task
            defer { loginInFlight = nil }
            return try await task.value
        } catch {
            // A renewal that fails (or is backing off) must not cost a collection while the
            // current token still lives.
            if stale == nil, let token, elapsed() < token.expiresAt {
                logger.warn("token renewal failed; using the current token until it expires",
                            ["expires_in_s": .seconds(token.expiresAt - elapsed())])
                return token
            }
            throw error
        }
    }

    private func login(deadline: Duration) async throws -> SessionToken {
        do {
            let token = try await performLogin(deadline: deadline)
            self.token = token
            failedLogins = 0
            loginBlockedUntil = nil
            return token
        } catch let error as ClientError where error.kind == .auth {
            failedLogins += 1
            let backoff = Self.backoff(after: failedLogins, initial: configuration.loginBackoffInitial,
                                       max: configuration.loginBackoffMax)
            loginBlockedUntil = elapsed() + backoff
            logger.warn("login rejected", ["failures": .int(failedLogins), "retry_in_s": .seconds(backoff),
                                           "error": .string(error.message)])
            throw error
        }
    }

    /// `initial` doubled per failure after the first, capped at `max`.
    static func backoff(after failures: Int, initial: Duration, max: Duration) -> Duration {
        Backoff(initial: initial, maximum: max).delay(afterFailures: failures)
    }

    private func performLogin(deadline: Duration) async throws -> SessionToken {
        guard let url = configuration.url(path: "/api/v1/auth/login") else {
            throw ClientError(.network, "winpower.base_url is not a valid URL")
        }
        let body = Self.loginBody(username: configuration.username, password: configuration.password)
        let headers: [(name: String, value: String)] = [
            ("Accept", "application/json, text/plain, */*"), ("Content-Type", "application/json"),
            ("Content-language", "en"), ("User-Agent", configuration.userAgent),
        ]
        let response = try await send(TransportRequest(method: "POST", url: url, headers: headers, body: body),
                                      endpoint: .login, deadline: deadline)
        let reply = try? decoder.decodeLogin(response.body)
        switch response.status {
        case 200:
            guard let reply else { throw ClientError(.decode, "login response is not valid JSON", status: 200) }
            guard reply.code == "000000" else {
                throw ClientError(.auth, "login rejected (code \(reply.code ?? "none"): \(Self.clean(reply.message))): "
                                       + "check winpower.username and winpower.password", status: 200, apiCode: reply.code)
            }
            guard let value = reply.token else {
                throw ClientError(.decode, "login response carries no data.token", status: 200)
            }
            return makeToken(value)
        case 401, 403:
            throw ClientError(.auth, "login rejected (HTTP \(response.status)\(reply?.message.map { ": \(Self.clean($0))" } ?? "")): "
                                   + "check winpower.username and winpower.password",
                              status: response.status, apiCode: reply?.code)
        default:
            throw ClientError(.httpStatus, "login answered HTTP \(response.status)" + Self.statusHint(response.status),
                              status: response.status, apiCode: reply?.code)
        }
    }

    /// What an unexpected status most likely means for `winpower.base_url`: the WinPower G2
    /// API answers `/api/v1/...` on its own port (8081 by default), so 404, 405 and 413 come
    /// from something else listening there (another service, a proxy, WinPower's web page).
    static func statusHint(_ status: Int) -> String {
        switch status {
        case 404: "; nothing answers the WinPower API there: check the port and path of winpower.base_url "
            + "(the WinPower G2 API, port 8081 by default, without a path)"
        case 405: "; that address does not accept the WinPower API's requests: check that winpower.base_url "
            + "points at the WinPower G2 API (port 8081 by default), not at a web page or proxy"
        case 413: "; the server at winpower.base_url refused the login request's size: it is probably not the "
            + "WinPower G2 API (check the port, 8081 by default) or a proxy in front of it limits request bodies"
        default: ""
        }
    }

    private func makeToken(_ value: String) -> SessionToken {
        let (lifetime, source) = (decoder.tokenClaims(value) ?? TokenClaims())
            .lifetime(fallback: configuration.defaultTokenLifetime)
        let now = elapsed()
        let wallNow = wallClock.now
        let token = SessionToken(value: value, receivedAt: now, wallNow: wallNow, lifetime: lifetime,
                                 refreshThreshold: configuration.refreshThreshold, source: source)
        // Masked wherever the logger's redactor reaches, replacing the previous token.
        logger.redactor.setSecret(value, named: tokenSlot)
        lastLogin = wallNow
        logger.info("logged in", ["token_lifetime_s": .seconds(lifetime),
                                  "lifetime_from": .string(source.rawValue),
                                  "renew_in_s": .seconds(token.renewAt - now)])
        return token
    }

    /// `{"username":…,"password":…}` with JSON string escaping.
    static func loginBody(username: String, password: String) -> [UInt8] {
        Array("{\"username\":\(username.jsonQuoted),\"password\":\(password.jsonQuoted)}".utf8)
    }

    /// A server-provided message made safe to show: printable, at most 120 characters.
    static func clean(_ message: String?) -> String {
        guard let message, !message.isEmpty else { return "no message" }
        let printable = String(message.unicodeScalars.filter { $0.value >= 0x20 && $0.value != 0x7F }.map(Character.init))
        return printable.count > 120 ? String(printable.prefix(120)) + "…" : printable
    }
}
