/// Why an HTTP exchange produced no response, with a stable ``kind`` to branch on.
///
/// ``detail`` says what failed in words a user can act on. It may name the host and port but
/// never contains the URL's path or query, a header value or a body: those carry tokens and
/// passwords, and errors end up in logs.
package struct HTTPClientError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The failure class.
    package enum Kind: String, Sendable, Equatable, CaseIterable {
        /// The connection failed or was lost (reset, unreachable, closed mid-response).
        case network
        /// The host name did not resolve.
        case hostNotFound = "host_not_found"
        /// Nothing listens on the port (`ECONNREFUSED`).
        case connectionRefused = "connection_refused"
        /// The exchange did not finish within the request's timeout.
        case timeout
        /// The TLS handshake failed for another reason than the certificate.
        case tls
        /// The server's certificate was not trusted.
        case certificate
        /// The configured CA file could not be used.
        case caFile = "ca_file"
        /// The calling task was cancelled.
        case cancelled
        /// The response (head or body) exceeded the configured limit.
        case tooLarge = "too_large"
        /// The response is not valid HTTP/1.x.
        case malformedResponse = "malformed_response"
        /// The URL's scheme is neither `http` nor `https`.
        case unsupportedScheme = "unsupported_scheme"
        /// The request cannot be sent as given (no host, a line break in a header, ...).
        case invalidRequest = "invalid_request"
        /// libcurl, needed for `https://`, could not be loaded.
        case libraryUnavailable = "library_unavailable"
    }

    /// The failure class.
    package var kind: Kind
    /// What went wrong; free of paths, queries, header values and bodies.
    package var detail: String

    /// Creates an error.
    package init(_ kind: Kind, _ detail: String) {
        self.kind = kind
        self.detail = detail
    }

    /// `kind: detail`, e.g. `connection_refused: connection to 127.0.0.1:9091 refused`.
    package var description: String { "\(kind.rawValue): \(detail)" }
}
