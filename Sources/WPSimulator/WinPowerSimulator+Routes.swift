import WPText
import FoundationEssentials
import Synchronization
import WPLogging
import WPServer
import WPRuntime

extension WinPowerSimulator {
    /// `POST /api/v1/auth/login`: checks the JSON credentials and issues a JWT-shaped token.
    func login(_ request: WPHTTPRequest) -> WPHTTPResponse {
        let credentials = try? JSONDecoder().decode(LoginCredentials.self, from: Data(request.body))
        let username = credentials?.username
        let password = credentials?.password
        let accepted = !faults.contains(.wrongCredentials)
            && username == configuration.username && password == configuration.password
        let token: String? = state.withLock { state in
            state.counters.loginAttempts += 1
            state.lastLoginRequest = request
            guard accepted else { return nil }
            state.counters.logins += 1
            state.tokenSerial += 1
            let token = makeToken(serial: state.tokenSerial)
            state.tokens[token] = elapsed()
            return token
        }
        guard let token else {
            logger.info("simulator rejected a login")
            return envelope(status: 401, code: "100401", message: "Authentication failed", key: "message")
        }
        let body = "{\"code\":\"000000\",\"message\":\"OK\",\"data\":{\"deviceId\":\((devices.first?.id ?? "").jsonQuoted),"
            + "\"token\":\(token.jsonQuoted)}}"
        return .json(Array(body.utf8))
    }

    /// A token shaped like the real ones: `header.payload.signature`, with the real claim set
    /// in the server's clock (``serverNow``).
    private func makeToken(serial localSerial: Int) -> String {
        let namespace = configuration.tokenNamespace
        let serial = namespace == 0 ? localSerial : localSerial &+ (namespace << 24)
        let issuedMs = Int64((serverNow.timeIntervalSince1970 * 1000).rounded(.down))
        let lifetimeMs = Int64((configuration.tokenLifetime.inSeconds * 1000).rounded())
        let expiresMs = issuedMs + lifetimeMs
        let minutes = (lifetimeMs + 59_999) / 60_000
        let id = SimulatorJSON.uuid(serial)
        let ms = configuration.tokenExpInMilliseconds
        let header = ms ? "{\"typ\":\"JWT\",\"alg\":\"HS512\"}" : "{\"alg\":\"HS512\"}"
        let exp = ms ? expiresMs : expiresMs / 1000
        let payload = "{\"create_time_key\":\(issuedMs),"
            + (ms ? "\"nbf\":\(issuedMs + 5)," : "")
            + "\"token_id\":\"\(id)\",\"login_user_type\":\"SysAdmin\","
            + "\"login_user_id\":\"00000000-0000-0000-0000-000000000000\",\"expire_time_key\":\(expiresMs),"
            + "\"tokenExpiredMinutes\":\(minutes),\"jti\":\"\(SimulatorJSON.uuid(serial &+ 0x5000))\","
            + "\"exp\":\(exp),\"iat\":\(issuedMs / 1000),\"sub\":\"WINPOWER_TOKEN\",\"iss\":\"WINPOWER\"}"
        let signature = Base64.encoded("simulated-signature-\(serial)".utf8, url: true)
        return [Base64.encoded(header.utf8, url: true), Base64.encoded(payload.utf8, url: true), signature].joined(separator: ".")
    }

    /// Whether `request` carries a token the server still accepts.
    private func isAuthorized(_ request: WPHTTPRequest) -> Bool {
        guard let header = request.headers["Authorization"], header.hasPrefix("Bearer ") else { return false }
        let token = String(header.dropFirst("Bearer ".count))
        let now = elapsed()
        let faults = self.faults
        return state.withLock { state in
            guard let issued = state.tokens[token] else { return false }
            let age = now - issued
            if age >= configuration.tokenLifetime { return false }
            if faults.contains(.earlyExpiry), age >= configuration.earlyExpiryAge { return false }
            return true
        }
    }

    /// `GET /api/v1/deviceData/detail/list`: one page of devices, the page size capped.
    func list(_ request: WPHTTPRequest) -> WPHTTPResponse {
        let faults = self.faults
        let authorized = isAuthorized(request) && !faults.contains(.unauthorized) && !faults.contains(.envelope401)
        let reportedTotal: Int? = state.withLock { state in
            state.counters.listCalls += 1
            state.lastListRequest = request
            if !authorized { state.counters.unauthorized += 1 }
            return state.reportedTotal
        }
        let cap = max(1, configuration.pageSizeCap)
        guard authorized else {
            return unauthorized(request, path: "/api/v1/deviceData/detail/list",
                                status: faults.contains(.envelope401) && !faults.contains(.unauthorized) ? 200 : 401)
        }
        let requested = Int(request.queryValue("pageSize") ?? "") ?? cap
        let pageSize = min(max(requested, 1), cap)
        let page = max(Int(request.queryValue("current") ?? request.queryValue("pageNum") ?? "") ?? 1, 1)
        let ups = (request.queryValue("deviceType") ?? "1") == "1"
        let area = request.queryValue("areaId") ?? SimulatedDevice.rootArea
        let subAreas = (request.queryValue("includeSubArea") ?? "true") != "false"
        // Every area but the root is a sub-area of the root, with none of its own.
        let listed = ups ? devices.filter { $0.areaId == area || (subAreas && area == SimulatedDevice.rootArea) } : []
        let start = min((page - 1).multipliedReportingOverflow(by: pageSize).partialValue, listed.count)
        let slice = listed[max(0, start)..<min(max(0, start) + pageSize, listed.count)]
        let t = configuration.frozenReadings ? 0 : simulatedSeconds
        let schedule = configuration.outageSchedule
        var objects = slice.map { device in
            guard device.role != .disconnected,
                  let window = schedule.first(where: { $0.device == device.index && $0.contains(t) }) else { return device.json(at: t) }
            var scripted = device
            scripted.role = window.role
            scripted.battery = window.runtime.map { SimulatedDevice.ScriptedBattery(start: window.start, runtime: $0) }
            return scripted.json(at: t)
        }
        if faults.contains(.malformedDevice), !objects.isEmpty {
            objects[0] = "{\"assetDevice\":{\"deviceType\":\"UPS\",\"alias\":\"broken\",\"isActive\":\"maybe\"},"
                + "\"realtime\":\"unavailable\",\"connected\":true}"
        }
        let body = "{\"total\":\(reportedTotal ?? listed.count),\"pageSize\":\(pageSize),\"currentPage\":\(page),"
            + "\"data\":[\(objects.joined(separator: ","))],\"code\":\"000000\",\"msg\":\"OK\"}"
        return .json(Array(body.utf8))
    }
}

extension WinPowerSimulator {
    /// The real server's reply to a missing, unknown or expired token (Spring Security's entry
    /// point): `message` in the request's `Content-language`, `data` a string naming the path.
    func unauthorized(_ request: WPHTTPRequest, path: String, status: Int) -> WPHTTPResponse {
        let chinese = (request.headers["Content-language"] ?? "zh-CN").lowercased().hasPrefix("zh")
        let message = chinese ? "没有登录或者令牌过期" : "Not logged in or token expired"
        let data = "Full authentication is required to access this resource(\(path))"
        return .json(Array("{\"code\":\"401\",\"message\":\(message.jsonQuoted),\"data\":\(data.jsonQuoted)}".utf8),
                     status: status)
    }
}

/// The login body's two fields. A field that is missing or not a string reads as nil (and the
/// login is rejected), like a lookup in the parsed JSON object.
private struct LoginCredentials: Decodable {
    var username: String?
    var password: String?

    private enum CodingKeys: String, CodingKey {
        case username, password
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        username = try? container.decode(String.self, forKey: .username)
        password = try? container.decode(String.self, forKey: .password)
    }
}
