public import FoundationEssentials
import WPMetrics
import WPHTTPClient

/// One HTTP request the ``PushgatewayClient`` sends.
public struct PushRequest: Sendable, Equatable {
    /// `PUT`, `POST` or `DELETE`.
    public var method: String
    /// The full URL, e.g. `http://gateway:9091/metrics/job/backup/instance/db1`.
    public var url: URL
    /// Header fields (including `Authorization` when basic auth is configured).
    public var headers: [String: String]
    /// The exposition body (empty for `DELETE`).
    public var body: [UInt8]
    /// How long the whole exchange may take.
    public var timeout: Duration
}

/// What the gateway answered.
public struct PushResponse: Sendable, Equatable {
    /// The HTTP status code.
    public var status: Int
    /// The response body (Pushgateway explains rejections here).
    public var body: [UInt8]

    /// Creates a response.
    public init(status: Int, body: [UInt8] = []) {
        self.status = status
        self.body = body
    }
}

/// Sends push requests over HTTP. Injected so tests can use an in-process fake.
///
/// Contract: ``send(_:)`` performs one exchange and returns the response whatever its status;
/// it throws only when no response arrived (connection refused, timeout, DNS). Implementations
/// must be safe to call concurrently and must not log or echo the request's headers.
public protocol PushTransport: Sendable {
    /// Performs one HTTP exchange.
    ///
    /// - Parameter request: The request to send.
    /// - Returns: The gateway's response, any status.
    /// - Throws: Any error when no response was received.
    func send(_ request: PushRequest) async throws -> PushResponse
}

/// A ``PushTransport`` over WPHTTPClient's `HTTPClient`: plain HTTP on its own sockets, HTTPS
/// through libcurl with the system trust store. Connections are kept alive between pushes;
/// redirects are not followed.
///
/// Errors are `HTTPClientError`s, whose text never contains header values (the basic-auth
/// credentials) or the body.
public struct HTTPClientPushTransport: PushTransport {
    private let client: HTTPClient

    /// Creates a transport.
    ///
    /// - Parameter userAgent: the `User-Agent` sent with every push.
    public init(userAgent: String = "wpexporter-pushgateway-client") {
        self.client = HTTPClient(configuration: .init(userAgent: userAgent))
    }

    /// Performs one exchange.
    ///
    /// - Throws: `HTTPClientError` when no response arrived.
    public func send(_ request: PushRequest) async throws -> PushResponse {
        let headers = request.headers.sorted { $0.key < $1.key }.map { (name: $0.key, value: $0.value) }
        let response = try await client.send(HTTPClientRequest(method: request.method, url: request.url, headers: headers,
                                                               body: request.body, timeout: request.timeout))
        return PushResponse(status: response.status, body: response.body)
    }
}
