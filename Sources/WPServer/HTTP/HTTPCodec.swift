/// The server's HTTP/1.1 codec as pure functions over bytes, for embedders and tools that
/// handle bytes themselves (tests, proxies, benchmarks).
///
/// ```swift
/// if let (request, used) = try HTTPCodec.parseRequest(bytes) { ... }   // nil: incomplete
/// let wire = HTTPCodec.encode(.text("ok"), answering: request)
/// ```
public enum HTTPCodec {
    /// Parses one request from the front of `bytes` with the limits of `configuration`.
    ///
    /// - Returns: The request and the number of bytes it used, or `nil` when `bytes` is a valid
    ///   but incomplete prefix.
    /// - Throws: ``HTTPParseError`` with the status the server would answer (400, 413, 417,
    ///   431, 501, 505) and what was wrong.
    public static func parseRequest(_ bytes: [UInt8], configuration: WPHTTPServer.Configuration = .init())
        throws(HTTPParseError) -> (request: WPHTTPRequest, consumed: Int)? {
        var parser = HTTPRequestParser(limits: configuration.parserLimits)
        switch bytes.withUnsafeBytes({ parser.parse($0) }) {
        case .needMore: return nil
        case .failure(let error): throw error
        case .request(let parsed): return (parsed.request, parsed.consumed)
        }
    }

    /// Encodes `response` as the server would send it in answer to `request`: framing,
    /// `Date`, gzip when the request accepts it (bodies of at least `gzipMinimumBytes`), no
    /// body for `HEAD`.
    ///
    /// - Parameters:
    ///   - response: The handler's response.
    ///   - request: The request it answers (its method, version and `Accept-Encoding`).
    ///   - gzipMinimumBytes: The smallest body compressed when accepted; `nil` never compresses.
    ///   - keepAlive: Whether the connection stays open (`false` adds `Connection: close`).
    ///   - date: The `Date` value; the current time when `nil`.
    public static func encode(_ response: WPHTTPResponse, answering request: WPHTTPRequest = WPHTTPRequest(method: "GET", target: "/"),
                              keepAlive: Bool = true, gzipMinimumBytes: Int? = 1024, date: String? = nil) -> [UInt8] {
        let encoded = HTTPResponseEncoder.encode(response, context: ResponseContext(request: request, keepAlive: keepAlive),
                                                 date: date ?? HTTPDate.format(), gzipMinimumBytes: gzipMinimumBytes)
        var bytes = encoded.head + encoded.body
        encoded.bodyParts.append(to: &bytes)
        return bytes + encoded.bodySuffix
    }
}
