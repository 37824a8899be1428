/// Everything that can go wrong talking to WinPower, with a stable ``kind`` for metrics.
///
/// Messages say what failed and what to check. They never contain a password, a token, an
/// `Authorization` header or a response body.
public struct ClientError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The failure class; `rawValue` is the stable label value for metrics.
    public enum Kind: String, Sendable, Equatable, CaseIterable {
        /// Connection refused, reset, DNS failure, unreachable server.
        case network
        /// A request exceeded `api_timeout` or the collection exceeded `timeout`.
        case timeout
        /// TLS handshake or certificate verification failed.
        case tls
        /// Login failed (wrong credentials), or still failing after one re-login.
        case auth
        /// An unexpected HTTP status.
        case httpStatus = "http_status"
        /// The envelope carried an error code.
        case apiCode = "api_code"
        /// The response was not the JSON the API documents.
        case decode
    }

    /// The failure class, the label value metrics count it by.
    public var kind: Kind
    /// What went wrong and what to check.
    public var message: String
    /// The HTTP status, when one was received.
    public var status: Int?
    /// The envelope `code`, for ``Kind/apiCode`` (and auth failures that carried one).
    public var apiCode: String?

    /// Creates an error of `kind` saying `message`, with the HTTP status and envelope code when
    /// there were any.
    public init(_ kind: Kind, _ message: String, status: Int? = nil, apiCode: String? = nil) {
        self.kind = kind
        self.message = message
        self.status = status
        self.apiCode = apiCode
    }

    /// `winpower <kind> error: <message>`.
    public var description: String { "winpower \(kind.rawValue) error: \(message)" }
}
