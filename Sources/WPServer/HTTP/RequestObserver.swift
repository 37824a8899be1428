/// One handled request, as reported to a ``RequestObserver``.
public struct RequestEvent: Sendable, Equatable {
    /// The handler's name: the route pattern for a ``WPRouter`` route (`/metrics`).
    public var handler: String
    /// The request's method (`GET`).
    public var method: String
    /// The response status; `500` when the handler threw.
    public var status: Int
    /// Time spent in the handler, in seconds.
    public var durationSeconds: Double

    /// Creates the event of a request `handler` answered with `status` in `durationSeconds`.
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
    /// Records one handled request; called concurrently, after the handler returned or threw.
    func requestHandled(_ event: RequestEvent)
}
