import FoundationEssentials
package import WPHTTPClient

/// The ``HTTPTransport`` the client uses: WPHTTPClient's `HTTPClient`, which speaks plain
/// HTTP itself and HTTPS through libcurl (system trust, one CA file, or no verification).
///
/// Connections are kept alive and reused; redirects are never followed (WinPower does not
/// redirect its API, and following one could send the bearer token to another host).
/// Failures become ``ClientError``s whose messages say which setting to check, and never
/// contain the URL's path or query, header values or bodies.
///
/// ```swift
/// let transport = HTTPClientTransport(tls: .trust(caFile: "/etc/wpexporter/winpower-ca.pem"))
/// ```
package final class HTTPClientTransport: HTTPTransport {
    /// How server certificates are checked (`winpower.ca_file`, `winpower.skip_ssl_verify`):
    /// the HTTP client's one model, `.system`, `.trust(caFile:)` or `.skip`.
    package typealias TLSVerification = HTTPClient.TLSVerification

    /// The certificate checking in use.
    package let tls: TLSVerification
    private let client: HTTPClient

    /// Creates a transport; nothing is connected (and libcurl is not loaded) before the first
    /// request.
    ///
    /// - Parameters:
    ///   - tls: certificate checking for `https://`; ``TLSVerification/system`` by default.
    ///   - userAgent: the `User-Agent` to send when the request has none.
    ///   - maxBodyBytes: larger responses fail with a `network` error instead of eating memory.
    ///   - threadPool: threads shared with other transports (the exporter gives all its servers
    ///     one); `nil`, the default, gives the transport threads of its own.
    ///   - maxThreads: the most exchanges this transport runs at once; 8 by default.
    package init(tls: TLSVerification = .system, userAgent: String? = nil, maxBodyBytes: Int = 64 << 20,
                threadPool: HTTPClient.ThreadPool? = nil, maxThreads: Int = 8) {
        self.tls = tls
        var configuration = HTTPClient.Configuration(tls: tls, userAgent: userAgent, maxBodyBytes: maxBodyBytes)
        configuration.threadPool = threadPool
        configuration.maxThreads = maxThreads
        client = HTTPClient(configuration: configuration)
    }

    /// Sends `request`; any HTTP status is a response.
    ///
    /// - Throws: ``ClientError`` (see ``map(_:)``), or `CancellationError` when the calling
    ///   task was cancelled.
    package func send(_ request: TransportRequest) async throws -> TransportResponse {
        do {
            return try await client.send(request)
        } catch where error.kind == .cancelled {
            throw CancellationError()
        } catch {
            throw Self.map(error, tls: tls)
        }
    }

    /// The ``ClientError`` for an `HTTPClientError`, with the advice users need: which
    /// `winpower.*` setting to check (never one already set: `tls` is the checking in use).
    static func map(_ error: HTTPClientError, tls: TLSVerification = .system) -> ClientError {
        let detail = error.detail
        switch error.kind {
        case .timeout:
            return ClientError(.timeout, "request timed out (winpower.api_timeout): \(detail)")
        case .certificate:
            return .certificate(detail)
        case .caFile:
            let named = detail.replacing("cannot use the CA file", with: "cannot use winpower.ca_file")
            return ClientError(.tls, named.contains("winpower.ca_file") ? named : "cannot use winpower.ca_file: \(detail)")
        case .tls:
            // OpenSSL's words when the other end answers the ClientHello in plain HTTP.
            let plainHTTP = ["wrong version number", "packet length too long", "http request"].contains {
                detail.lowercased().contains($0)
            }
            if plainHTTP {
                return ClientError(.tls, "TLS handshake failed (\(detail)): the server likely speaks plain HTTP on this "
                                       + "port; use http:// in winpower.base_url")
            }
            if tls == .skip {
                return ClientError(.tls, "TLS handshake failed (\(detail)) although certificates are not checked "
                                       + "(winpower.skip_ssl_verify is set): check winpower.base_url's host and port")
            }
            return ClientError(.tls, "TLS handshake failed (\(detail)); if the server uses a self-signed certificate, "
                                   + "set winpower.ca_file or winpower.skip_ssl_verify: true")
        case .hostNotFound:
            return ClientError(.network, "host not found: check winpower.base_url (\(detail))")
        case .connectionRefused:
            return ClientError(.network, "connection refused: check winpower.base_url and that WinPower is running "
                                       + "(\(detail))")
        case .unsupportedScheme:
            return ClientError(.network, "unsupported URL scheme: winpower.base_url must start with http:// or https://")
        case .malformedResponse:
            return ClientError(.network, "the server's answer is not valid HTTP (\(detail)): check that "
                                       + "winpower.base_url points at WinPower")
        case .tooLarge:
            return ClientError(.network, "response too large: \(detail)")
        case .cancelled:
            return ClientError(.network, "request cancelled")
        case .invalidRequest:
            return ClientError(.network, "invalid request: \(detail); check winpower.base_url")
        case .libraryUnavailable:
            return ClientError(.network, "\(detail); install libcurl (libcurl4) for https:// WinPower URLs")
        case .network:
            return ClientError(.network, "request failed: \(detail)")
        }
    }
}
