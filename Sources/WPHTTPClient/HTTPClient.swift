import FoundationEssentials
import WPRuntime

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
/// Blocking work runs on the client's own threads (named `http-client`; host names are looked
/// up on threads named `dns`), never on Dispatch's or Swift's shared pools: `send` suspends
/// while a thread does the exchange. Threads start on demand up to
/// ``Configuration/maxThreads`` and end after ``Configuration/threadIdleTime`` without work;
/// further requests wait in order for this client's threads only, so a server that hangs holds
/// at most its own client's threads. Clients given one ``ThreadPool``
/// (``Configuration/threadPool``) run on its threads instead, each at most
/// ``Configuration/maxThreads`` at once: the threads then follow the exchanges in flight, not
/// the number of clients. Safe to use from many tasks at once; concurrent requests
/// to one host use separate connections.
///
/// ```swift
/// let client = HTTPClient(configuration: .init(userAgent: "wpexporter"))
/// let response = try await client.send(HTTPClientRequest(url: URL(string: "http://127.0.0.1:8081/api")!))
/// print(response.status, response.body.count)
/// ```
package final class HTTPClient: Sendable {
    /// The configuration in use.
    package let configuration: Configuration
    /// The threads exchanges run on.
    let threads: ExchangeThreads
    let pool: ConnectionPool
    let curl: CurlSession
    let resolver: HostResolver

    /// Creates a client; nothing is connected or loaded until the first request.
    ///
    /// - Parameter configuration: limits, `User-Agent` and certificate checking.
    package convenience init(configuration: Configuration = Configuration()) {
        self.init(configuration: configuration, resolver: .system)
    }

    /// Creates a client resolving `http://` host names with `resolver`.
    init(configuration: Configuration, resolver: HostResolver) {
        self.configuration = configuration
        if let pool = configuration.threadPool {
            self.threads = ExchangeThreads(pool: pool, maxThreads: configuration.maxThreads)
        } else {
            self.threads = ExchangeThreads(maxThreads: configuration.maxThreads, idleTime: configuration.threadIdleTime)
        }
        self.pool = ConnectionPool(maxIdleTime: configuration.maxIdleTime)
        self.curl = CurlSession(tls: configuration.tls)
        self.resolver = resolver
    }

    /// Sends `request` and returns the whole response, whatever its status.
    ///
    /// - Parameter request: the request; its ``HTTPClientRequest/timeout`` bounds everything.
    /// - Returns: the response (3xx, 4xx and 5xx included).
    /// - Throws: ``HTTPClientError`` when no complete response arrived; kind
    ///   ``HTTPClientError/Kind/cancelled`` when the calling task was cancelled.
    package func send(_ request: HTTPClientRequest) async throws(HTTPClientError) -> HTTPClientResponse {
        let target = try RequestTarget(request.url)
        let cancellation = ExchangeCancellation()
        let deadline = Deadline(after: request.timeout) // a wait for a thread counts too
        var expiry: Task<Void, Never>?
        let result: Result<HTTPClientResponse, HTTPClientError> = await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let waits = threads.submit(ExchangeThreads.Job(cancellation: cancellation, run: { [self] exchangeDone in
                    let result = Result { () throws(HTTPClientError) in
                        try perform(request, target: target, deadline: deadline, cancellation: cancellation)
                    }
                    exchangeDone()
                    continuation.resume(returning: result)
                }, refuse: { error in
                    continuation.resume(returning: .failure(error))
                }))
                // Rare: every thread is busy. Answer at the deadline even if none frees up by then.
                if waits { expiry = expire(cancellation, at: deadline, authority: target.authority) }
            }
        } onCancel: {
            cancellation.cancel()
            threads.withdraw(cancellation, with: ExchangeCancellation.error) // still waiting: answered at once
        }
        expiry?.cancel()
        return try result.get()
    }

    /// Refuses the exchange of `cancellation` with a time-out at `deadline` if it is still
    /// waiting for a thread then.
    private func expire(_ cancellation: ExchangeCancellation, at deadline: Deadline,
                        authority: String) -> Task<Void, Never> {
        Task { [threads] in
            do {
                try await Task.sleep(until: deadline.end, clock: .continuous)
            } catch {
                return // answered before the deadline
            }
            threads.withdraw(cancellation, with: HTTPClientError(.timeout, "timed out waiting for a thread to reach \(authority): "
                + (threads.isShared ? "the client's \(threads.maxThreads) or the shared pool's threads are all busy"
                                    : "all \(threads.maxThreads) of the client's are busy")))
        }
    }

    /// Runs one exchange; blocking, on one of ``threads``.
    private func perform(_ request: HTTPClientRequest, target: RequestTarget, deadline: Deadline,
                         cancellation: ExchangeCancellation) throws(HTTPClientError) -> HTTPClientResponse {
        try cancellation.check()
        switch target.scheme {
        case .http:
            return try PlainExchange(request: request, target: target, configuration: configuration,
                                     deadline: deadline, cancellation: cancellation, pool: pool, resolver: resolver).run()
        case .https:
            return try curl.perform(request, target: target, configuration: configuration, deadline: deadline,
                                    cancellation: cancellation)
        }
    }
}
