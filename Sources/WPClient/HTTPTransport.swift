package import WPHTTPClient

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

/// An HTTP request as the client builds it: the HTTP client's own request (one request model).
package typealias TransportRequest = HTTPClientRequest

/// A complete HTTP response: the HTTP client's own response.
package typealias TransportResponse = HTTPClientResponse

extension ClientError {
    /// The message every certificate failure carries, so users know which knob to turn.
    static func certificate(_ detail: String) -> ClientError {
        ClientError(.tls, "certificate verify failed (\(detail)): set winpower.ca_file to the server's CA "
                        + "certificate or winpower.skip_ssl_verify: true")
    }
}
