import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// An ``HTTPTransport`` on `URLSession`: plain HTTP, and HTTPS verified against the system
/// trust store.
///
/// It cannot skip verification or trust a single CA file on Linux (`URLSession` offers no
/// hook there); use ``CurlTransport`` for those. Connections are reused by the session;
/// redirects are never followed.
public final class URLSessionTransport: HTTPTransport {
    private let session: URLSession

    /// - Parameter maxConnections: connections kept per host.
    public init(maxConnections: Int = 2) {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.httpMaximumConnectionsPerHost = maxConnections
        configuration.httpCookieAcceptPolicy = .never
        configuration.httpShouldSetCookies = false
        configuration.urlCache = nil
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        session = URLSession(configuration: configuration, delegate: NoRedirects(), delegateQueue: nil)
    }

    deinit { session.finishTasksAndInvalidate() }

    public func send(_ request: TransportRequest) async throws -> TransportResponse {
        var urlRequest = URLRequest(url: request.url)
        urlRequest.httpMethod = request.method
        urlRequest.timeoutInterval = request.timeout.secondsValue
        for (name, value) in request.headers { urlRequest.addValue(value, forHTTPHeaderField: name) }
        if !request.body.isEmpty { urlRequest.httpBody = Data(request.body) }
        let data: Data
        let response: URLResponse
        do {
            (data, response) = try await session.data(for: urlRequest)
        } catch let error as URLError {
            throw Self.map(error)
        } catch is CancellationError {
            throw CancellationError()
        } catch {
            throw ClientError(.network, "request failed: \(type(of: error))")
        }
        guard let http = response as? HTTPURLResponse else {
            throw ClientError(.network, "not an HTTP response")
        }
        var headers: [(name: String, value: String)] = []
        for (name, value) in http.allHeaderFields {
            headers.append((name: "\(name)", value: "\(value)"))
        }
        return TransportResponse(status: http.statusCode, headers: headers, body: Array(data))
    }

    /// Maps a `URLError` onto a ``ClientError`` kind, without the URL (it may hold secrets).
    static func map(_ error: URLError) -> ClientError {
        // On Linux, libcurl's TLS failures arrive as `.unknown` carrying curl's message.
        let detail = (error.userInfo[NSLocalizedDescriptionKey] as? String) ?? ""
        if detail.localizedCaseInsensitiveContains("certificate") {
            return .certificate(detail)
        }
        if detail.contains("SSL") || detail.contains("TLS") {
            return ClientError(.tls, "TLS handshake failed (\(detail)); if the server uses a self-signed certificate, "
                                   + "set winpower.ca_file or winpower.skip_ssl_verify: true")
        }
        switch error.code {
        case .timedOut:
            return ClientError(.timeout, "request timed out (winpower.api_timeout)")
        case .serverCertificateUntrusted, .serverCertificateHasBadDate, .serverCertificateHasUnknownRoot,
             .serverCertificateNotYetValid, .clientCertificateRejected, .clientCertificateRequired:
            return .certificate("URLError \(error.code.rawValue)")
        case .secureConnectionFailed:
            return .certificate("TLS handshake failed")
        case .cancelled:
            return ClientError(.network, "request cancelled")
        case .cannotConnectToHost:
            return ClientError(.network, "connection refused: check winpower.base_url and that WinPower is running")
        case .cannotFindHost, .dnsLookupFailed:
            return ClientError(.network, "host not found: check winpower.base_url")
        case .networkConnectionLost:
            return ClientError(.network, "connection lost")
        default:
            return ClientError(.network, "request failed (URLError \(error.code.rawValue))")
        }
    }
}

/// Never follows a redirect: the 3xx response is returned to the client, which treats it as
/// an unexpected status. (WinPower does not redirect its API; following one could send the
/// bearer token to another host.)
private final class NoRedirects: NSObject, URLSessionTaskDelegate, Sendable {
    func urlSession(_ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
                    newRequest request: URLRequest, completionHandler: @escaping @Sendable (URLRequest?) -> Void) {
        completionHandler(nil)
    }
}
