/// Builds the bytes of an HTTP/1.1 request: a pure function, checked so nothing a caller
/// passes can split the request.
enum RequestEncoder {
    /// Headers the client sets itself; a caller's are dropped.
    static let framingHeaders: Set<String> = ["host", "content-length", "transfer-encoding", "connection"]

    /// The request line, headers and body.
    ///
    /// - Throws: ``HTTPClientError/Kind/invalidRequest`` for a method that is not a token, or
    ///   a header name that is not a token or value with a line break or NUL (the error names
    ///   the header, never its value).
    static func encode(_ request: HTTPClientRequest, target: RequestTarget,
                       userAgent: String?) throws(HTTPClientError) -> [UInt8] {
        guard !request.method.isEmpty, request.method.utf8.allSatisfy(ResponseSyntax.isTokenCharacter) else {
            throw HTTPClientError(.invalidRequest, "the method is not a valid HTTP token")
        }
        var head = "\(request.method) \(target.pathAndQuery) HTTP/1.1\r\nHost: \(target.hostHeader)\r\n"
        for field in try fields(of: request, userAgent: userAgent) {
            head += "\(field.name): \(field.value)\r\n"
        }
        if !request.body.isEmpty || ["POST", "PUT", "PATCH"].contains(request.method) {
            head += "Content-Length: \(request.body.count)\r\n"
        }
        head += "\r\n"
        var bytes = Array(head.utf8)
        bytes += request.body
        return bytes
    }

    /// The caller's header fields without framing headers, plus `User-Agent` when configured
    /// and absent, each checked.
    ///
    /// - Throws: ``HTTPClientError/Kind/invalidRequest`` naming the header, never its value.
    static func fields(of request: HTTPClientRequest,
                       userAgent: String?) throws(HTTPClientError) -> [(name: String, value: String)] {
        var fields = request.headers.filter { !framingHeaders.contains($0.name.lowercased()) }
        if let userAgent, request.header("User-Agent") == nil { fields.append((name: "User-Agent", value: userAgent)) }
        for field in fields {
            guard !field.name.isEmpty, field.name.utf8.allSatisfy(ResponseSyntax.isTokenCharacter) else {
                throw HTTPClientError(.invalidRequest, "a header name is not a valid HTTP token")
            }
            guard field.value.utf8.allSatisfy({ $0 != 0x0A && $0 != 0x0D && $0 != 0 }) else {
                throw HTTPClientError(.invalidRequest, "the value of header '\(field.name)' contains a line break or NUL")
            }
        }
        return fields
    }
}
