/// One handled request, as reported to a ``RequestObserver``.
public struct RequestEvent: Sendable, Equatable {
    /// The handler's name: the route pattern for a ``Router`` route (`/metrics`).
    public var handler: String
    public var method: String
    /// The response status; `500` when the handler threw.
    public var status: Int
    /// Time spent in the handler, in seconds.
    public var durationSeconds: Double

    public init(handler: String, method: String, status: Int, durationSeconds: Double) {
        self.handler = handler
        self.method = method
        self.status = status
        self.durationSeconds = durationSeconds
    }
}

/// Receives one event per handled request: the hook for request counters and duration
/// histograms. WPServer knows nothing of metrics; the executable implements this protocol
/// on top of its metrics library.
///
/// Contract: `requestHandled` is called concurrently from many tasks, after the handler
/// returned or threw, and must be cheap and non-blocking.
public protocol RequestObserver: Sendable {
    func requestHandled(_ event: RequestEvent)
}

/// A handler that reports every request it handles to an observer.
///
/// ```swift
/// let metrics = ObservedHandler(name: "/metrics", handler: renderer, observer: requestMetrics)
/// ```
public struct ObservedHandler: HTTPHandler {
    public let name: String
    public let handler: any HTTPHandler
    public let observer: any RequestObserver

    public init(name: String, handler: any HTTPHandler, observer: any RequestObserver) {
        self.name = name
        self.handler = handler
        self.observer = observer
    }

    public func handle(_ request: HTTPRequest) async throws -> HTTPResponse {
        let clock = ContinuousClock()
        let start = clock.now
        do {
            let response = try await handler.handle(request)
            observer.requestHandled(RequestEvent(handler: name, method: request.method, status: response.status,
                                                 durationSeconds: Self.seconds(start.duration(to: clock.now))))
            return response
        } catch {
            observer.requestHandled(RequestEvent(handler: name, method: request.method, status: 500,
                                                 durationSeconds: Self.seconds(start.duration(to: clock.now))))
            throw error
        }
    }

    private static func seconds(_ duration: Duration) -> Double {
        let (seconds, attoseconds) = duration.components
        return Double(seconds) + Double(attoseconds) / 1e18
    }
}

/// An ``HTTPHandler`` made from a closure.
///
/// ```swift
/// let hello = HandlerFunction { _ in .text("hello\n") }
/// ```
public struct HandlerFunction: HTTPHandler {
    private let body: @Sendable (HTTPRequest) async throws -> HTTPResponse

    public init(_ body: @escaping @Sendable (HTTPRequest) async throws -> HTTPResponse) {
        self.body = body
    }

    public func handle(_ request: HTTPRequest) async throws -> HTTPResponse {
        try await body(request)
    }
}
