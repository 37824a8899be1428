package import FoundationEssentials

/// Sends one HTTP request and returns the whole response. The client's only network seam.
///
/// Contract: safe to call concurrently. Must finish within ``TransportRequest/timeout`` or
/// throw ``ClientError`` of kind `timeout`; connection failures throw kind `network`, TLS
/// failures kind `tls` with a message naming `winpower.ca_file` and
/// `winpower.skip_ssl_verify`. Redirects to another host are never followed (the 3xx
/// response is returned). Any HTTP status is a response, not an error.
package protocol HTTPTransport: Sendable {
    func send(_ request: TransportRequest) async throws -> TransportResponse
}

/// An HTTP request as the client builds it.
package struct TransportRequest: Sendable, Equatable {
    package var method: String
    package var url: URL
    /// Header fields in order; the transport adds framing headers (`Host`, `Content-Length`).
    package var headers: [(name: String, value: String)]
    package var body: [UInt8]
    /// Time allowed for the whole exchange.
    package var timeout: Duration

    package init(method: String, url: URL, headers: [(name: String, value: String)] = [],
                body: [UInt8] = [], timeout: Duration = .seconds(10)) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
        self.timeout = timeout
    }

    /// The first value of header `name` (case-insensitive).
    package func header(_ name: String) -> String? {
        headers.first { $0.name.lowercased() == name.lowercased() }?.value
    }

    package static func == (lhs: TransportRequest, rhs: TransportRequest) -> Bool {
        lhs.method == rhs.method && lhs.url == rhs.url && lhs.body == rhs.body && lhs.timeout == rhs.timeout
            && lhs.headers.elementsEqual(rhs.headers) { $0.name == $1.name && $0.value == $1.value }
    }
}

/// A complete HTTP response.
package struct TransportResponse: Sendable, Equatable {
    package var status: Int
    package var headers: [(name: String, value: String)]
    package var body: [UInt8]

    package init(status: Int, headers: [(name: String, value: String)] = [], body: [UInt8] = []) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// The first value of header `name` (case-insensitive).
    package func header(_ name: String) -> String? {
        headers.first { $0.name.lowercased() == name.lowercased() }?.value
    }

    package static func == (lhs: TransportResponse, rhs: TransportResponse) -> Bool {
        lhs.status == rhs.status && lhs.body == rhs.body
            && lhs.headers.elementsEqual(rhs.headers) { $0.name == $1.name && $0.value == $1.value }
    }
}

extension ClientError {
    /// The message every certificate failure carries, so users know which knob to turn.
    static func certificate(_ detail: String) -> ClientError {
        ClientError(.tls, "certificate verify failed (\(detail)): set winpower.ca_file to the server's CA "
                        + "certificate or winpower.skip_ssl_verify: true")
    }
}
