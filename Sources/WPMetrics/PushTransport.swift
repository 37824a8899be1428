import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

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

/// A ``PushTransport`` over `URLSession` (plain HTTP and HTTPS with system trust).
public struct URLSessionPushTransport: PushTransport {
    private let session: URLSession

    /// Creates a transport with an ephemeral session (no cookies, no cache).
    public init() {
        self.session = URLSession(configuration: .ephemeral)
    }

    public func send(_ request: PushRequest) async throws -> PushResponse {
        var urlRequest = URLRequest(url: request.url)
        urlRequest.httpMethod = request.method
        let components = request.timeout.components
        urlRequest.timeoutInterval = Double(components.seconds) + Double(components.attoseconds) / 1e18
        for (name, value) in request.headers { urlRequest.setValue(value, forHTTPHeaderField: name) }
        if !request.body.isEmpty { urlRequest.httpBody = Data(request.body) }
        let (data, response) = try await session.data(for: urlRequest)
        let status = (response as? HTTPURLResponse)?.statusCode ?? 0
        return PushResponse(status: status, body: Array(data))
    }
}
