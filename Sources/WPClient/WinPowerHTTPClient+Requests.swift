import WPHTTPClient
import WPRuntime
import WPLogging

extension WinPowerHTTPClient {
    enum PageResult {
        case page(DeviceListPage)
        case unauthorized
    }

    /// Requests and decodes one page, decoding at most `keepAtMost` usable devices;
    /// `.unauthorized` for HTTP 401 or envelope code `401`.
    func requestPage(_ page: Int, keepAtMost: Int, token: String, deadline: Duration) async throws -> PageResult {
        let query = "current=\(page)&pageSize=\(configuration.pageSize)&areaId=\(configuration.areaId)"
            + "&includeSubArea=\(configuration.includeSubArea)&pageNum=\(page)&deviceType=1"
        guard let url = configuration.url(path: "/api/v1/deviceData/detail/list", query: query) else {
            throw ClientError(.network, "winpower.base_url is not a valid URL")
        }
        let headers: [(name: String, value: String)] = [
            ("Accept", "application/json, text/plain, */*"), ("Content-language", "zh-CN"),
            ("Authorization", "Bearer \(token)"), ("User-Agent", configuration.userAgent),
        ]
        let response = try await send(TransportRequest(method: "GET", url: url, headers: headers),
                                      endpoint: .deviceList, deadline: deadline)
        if response.status == 401 { return .unauthorized }
        guard response.status == 200 else {
            let envelope = try? decoder.decodeLogin(response.body)
            throw ClientError(.httpStatus, "device list answered HTTP \(response.status)"
                                + (envelope?.code.map { " (code \($0): \(Self.clean(envelope?.message)))" } ?? "")
                                + Self.statusHint(response.status),
                              status: response.status, apiCode: envelope?.code)
        }
        let decoded = try decoder.decodeDeviceList(response.body, page: page, keepAtMost: keepAtMost)
        if decoded.code == "401" { return .unauthorized }
        guard decoded.isSuccess else {
            throw ClientError(.apiCode, "device list returned code \(decoded.code ?? "none"): \(Self.clean(decoded.message))",
                              status: 200, apiCode: decoded.code)
        }
        return .page(decoded)
    }

    /// Sends `request` within the per-request and the collection budget, timing it.
    func send(_ request: TransportRequest, endpoint: APICall.Endpoint, deadline: Duration) async throws -> TransportResponse {
        let remaining = deadline - elapsed()
        guard remaining > .zero else {
            throw ClientError(.timeout, "collection exceeded winpower.timeout (\(configuration.timeout))")
        }
        var request = request
        request.timeout = min(configuration.apiTimeout, remaining)
        let start = elapsed()
        do {
            let response = try await transport.send(request)
            let duration = elapsed() - start
            record(APICall(endpoint: endpoint, duration: duration, status: response.status))
            if logger.isEnabled(.debug) {
                logger.debug("api response", ["endpoint": .string(endpoint.rawValue), "status": .int(response.status),
                                              "duration_ms": .milliseconds(duration),
                                              "bytes": .int(response.body.count),
                                              "body_preview": .string(BodyPreview.masked(response.body))])
            }
            return response
        } catch let error as ClientError {
            record(APICall(endpoint: endpoint, duration: elapsed() - start, status: nil))
            logger.debug("api request failed", ["endpoint": .string(endpoint.rawValue), "kind": .string(error.kind.rawValue)])
            throw error
        } catch is CancellationError {
            throw CancellationError()
        } catch {
            record(APICall(endpoint: endpoint, duration: elapsed() - start, status: nil))
            throw ClientError(.network, "\(endpoint.rawValue) request failed: \(type(of: error))")
        }
    }
}

/// The start of a response body, made safe for a debug log: truncated, secrets masked.
enum BodyPreview {
    /// Keys whose string values are masked wherever they appear.
    static let secretKeys = ["token", "password", "passwd", "authorization", "secret"]

    /// At most `limit` bytes of `body`, with the values of secret keys and anything shaped
    /// like a JWT replaced by `***`.
    static func masked(_ body: [UInt8], limit: Int = 256) -> String {
        var text = String(decoding: body.prefix(limit), as: UTF8.self)
        for key in secretKeys { text = maskValues(of: key, in: text) }
        text = maskJWTs(text)
        return body.count > limit ? text + "…" : text
    }

    private static func maskValues(of key: String, in text: String) -> String {
        var result = ""
        var rest = Substring(text)
        while let range = firstRangeIgnoringCase(of: "\"\(key)\"", in: rest) {
            result += rest[..<range.upperBound]
            rest = rest[range.upperBound...]
            let afterSpaces = rest.drop { $0 == " " || $0 == ":" }
            result += rest[..<afterSpaces.startIndex]
            rest = afterSpaces
            guard rest.first == "\"" else { continue }
            result += "\"***\""
            var index = rest.index(after: rest.startIndex)
            while index < rest.endIndex, rest[index] != "\"" {
                index = rest[index] == "\\" ? rest.index(index, offsetBy: 2, limitedBy: rest.endIndex) ?? rest.endIndex
                                            : rest.index(after: index)
            }
            rest = index < rest.endIndex ? rest[rest.index(after: index)...] : rest[rest.endIndex...]
        }
        return result + rest
    }

    /// The first range of `needle` in `text` ignoring case, like `range(of:options: .caseInsensitive)`:
    /// characters match when their lower-case or their upper-case forms are equal (so `ſ`
    /// matches `s` and the Kelvin sign matches `k`).
    static func firstRangeIgnoringCase(of needle: String, in text: Substring) -> Range<Substring.Index>? {
        let pattern = Array(needle)
        guard !pattern.isEmpty else { return nil }
        var start = text.startIndex
        while start < text.endIndex {
            var index = start
            var matched = 0
            while matched < pattern.count, index < text.endIndex, sameIgnoringCase(text[index], pattern[matched]) {
                index = text.index(after: index)
                matched += 1
            }
            if matched == pattern.count { return start..<index }
            start = text.index(after: start)
        }
        return nil
    }

    private static func sameIgnoringCase(_ a: Character, _ b: Character) -> Bool {
        a == b || a.lowercased() == b.lowercased() || a.uppercased() == b.uppercased()
    }

    private static func maskJWTs(_ text: String) -> String {
        var result = ""
        var rest = Substring(text)
        while let range = rest.firstRange(of: "eyJ") {
            result += rest[..<range.lowerBound] + Redaction.mask
            rest = rest[range.lowerBound...].drop { $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" || $0 == "." }
        }
        return result + rest
    }
}
