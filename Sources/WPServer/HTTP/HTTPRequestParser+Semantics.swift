import WPText
import WPRuntime

/// Message framing and connection semantics derived from the header fields (RFC 9112 §6, §9).
extension HTTPRequestParser {
    enum SemanticsResult {
        case success((framing: BodyFraming, keepAlive: Bool, expectContinue: Bool))
        case failure(HTTPParseError)
    }

    static func semantics(of headers: WPHTTPHeaders, version: WPHTTPVersion, limits: HTTPParserLimits) -> SemanticsResult {
        let hosts = headers.values(for: "Host")
        if hosts.count > 1 { return .failure(.bad("more than one Host header")) }
        if version == .http11, hosts.isEmpty { return .failure(.bad("HTTP/1.1 request without Host header")) }

        let transferEncodings = headers.values(for: "Transfer-Encoding")
        let contentLengths = headers.values(for: "Content-Length")
        var framing = BodyFraming.none
        if !transferEncodings.isEmpty {
            if !contentLengths.isEmpty {
                return .failure(.bad("both Content-Length and Transfer-Encoding present"))
            }
            if version == .http10 { return .failure(.bad("Transfer-Encoding in an HTTP/1.0 request")) }
            let codings = transferEncodings.flatMap(commaList).map { $0.lowercased() }
            let chunkedCount = codings.filter { $0 == "chunked" }.count
            if chunkedCount == 0 || codings.last != "chunked" {
                if codings.contains("chunked") { return .failure(.bad("chunked is not the final transfer coding")) }
                return .failure(HTTPParseError(status: 501, reason: "transfer coding '\(codings.joined(separator: ", "))' not supported"))
            }
            if chunkedCount > 1 { return .failure(.bad("chunked transfer coding applied twice")) }
            if codings.count > 1 {
                return .failure(HTTPParseError(status: 501, reason: "transfer coding '\(codings.joined(separator: ", "))' not supported"))
            }
            framing = .chunked
        } else if !contentLengths.isEmpty {
            var length: Int?
            for item in contentLengths.flatMap(commaList) {
                guard !item.isEmpty, item.utf8.count <= 18, item.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }),
                      let value = Int(item) else {
                    return .failure(.bad("invalid Content-Length '\(item.prefix(32))'"))
                }
                if let length, length != value { return .failure(.bad("conflicting Content-Length values")) }
                length = value
            }
            guard let length else { return .failure(.bad("empty Content-Length")) }
            if length > limits.maxBodyBytes {
                return .failure(HTTPParseError(status: 413, reason: "body of \(length) bytes exceeds \(limits.maxBodyBytes)"))
            }
            framing = length > 0 ? .length(length) : .none
        }

        var expectContinue = false
        if let expect = headers["Expect"] {
            guard expect.lowercased() == "100-continue", headers.values(for: "Expect").count == 1 else {
                return .failure(HTTPParseError(status: 417, reason: "unsupported expectation '\(expect.prefix(32))'"))
            }
            expectContinue = version == .http11 && framing != .none
        }

        let connection = headers.values(for: "Connection").flatMap(commaList).map { $0.lowercased() }
        let keepAlive = connection.contains("close") ? false
            : version == .http11 ? true : connection.contains("keep-alive")
        return .success((framing, keepAlive, expectContinue))
    }

    /// Splits a comma-separated field value into trimmed, non-empty items.
    static func commaList(_ value: String) -> [String] {
        value.split(separator: ",").map { $0.trimmingSpacesAndTabs() }.filter { !$0.isEmpty }
    }
}


