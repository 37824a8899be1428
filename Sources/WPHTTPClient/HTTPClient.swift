import Dispatch
import FoundationEssentials

/// A small HTTP/1.1 client: its own code on POSIX sockets for `http://`, libcurl (loaded at
/// run time, only when first needed) for `https://`.
///
/// - One deadline bounds the whole exchange (``HTTPClientRequest/timeout``).
/// - Responses framed by `Content-Length`, `Transfer-Encoding: chunked` or connection close
///   are read whole, up to ``Configuration/maxBodyBytes``; malformed ones are rejected.
/// - Redirects are never followed: a 3xx is returned like any other status.
/// - One idle kept-alive connection per host and port is reused. A reused connection that
///   fails before any response byte arrives (the server closed it while idle) is retried once
///   on a fresh connection, whatever the method.
/// - Cancelling the calling task aborts the exchange.
///
/// Blocking work runs on a private dispatch queue, never on the Swift concurrency pool. Safe
/// to use from many tasks at once; concurrent requests to one host use separate connections.
///
/// ```swift
/// let client = HTTPClient(configuration: .init(userAgent: "wpexporter"))
/// let response = try await client.send(HTTPClientRequest(url: URL(string: "http://127.0.0.1:8081/api")!))
/// print(response.status, response.body.count)
/// ```
public final class HTTPClient: Sendable {
    /// The configuration in use.
    public let configuration: Configuration
    let queue = DispatchQueue(label: "wpexporter.http-client", attributes: .concurrent)
    let pool: ConnectionPool
    let curl: CurlSession

    /// Creates a client; nothing is connected or loaded until the first request.
    ///
    /// - Parameter configuration: limits, `User-Agent` and certificate checking.
    public init(configuration: Configuration = Configuration()) {
        self.configuration = configuration
        self.pool = ConnectionPool(maxIdleTime: configuration.maxIdleTime)
        self.curl = CurlSession(tls: configuration.tls)
    }

    /// Sends `request` and returns the whole response, whatever its status.
    ///
    /// - Parameter request: the request; its ``HTTPClientRequest/timeout`` bounds everything.
    /// - Returns: the response (3xx, 4xx and 5xx included).
    /// - Throws: ``HTTPClientError`` when no complete response arrived; kind
    ///   ``HTTPClientError/Kind/cancelled`` when the calling task was cancelled.
    public func send(_ request: HTTPClientRequest) async throws(HTTPClientError) -> HTTPClientResponse {
        let target = try RequestTarget(request.url)
        let cancellation = ExchangeCancellation()
        let result: Result<HTTPClientResponse, HTTPClientError> = await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                queue.async { [self] in
                    continuation.resume(returning: Result { () throws(HTTPClientError) in
                        try perform(request, target: target, cancellation: cancellation)
                    })
                }
            }
        } onCancel: {
            cancellation.cancel()
        }
        return try result.get()
    }

    /// Runs one exchange; blocking, on ``queue``.
    private func perform(_ request: HTTPClientRequest, target: RequestTarget,
                         cancellation: ExchangeCancellation) throws(HTTPClientError) -> HTTPClientResponse {
        try cancellation.check()
        let deadline = Deadline(after: request.timeout)
        switch target.scheme {
        case .http:
            return try PlainExchange(request: request, target: target, configuration: configuration,
                                     deadline: deadline, cancellation: cancellation, pool: pool).run()
        case .https:
            return try curl.perform(request, target: target, configuration: configuration, deadline: deadline,
                                    cancellation: cancellation)
        }
    }
}
