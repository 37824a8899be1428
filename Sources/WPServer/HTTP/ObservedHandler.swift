import WPRuntime
/// A handler that reports every request it handles to an observer.
///
/// ```swift
/// let metrics = ObservedHandler(name: "/metrics", handler: renderer, observer: requestMetrics)
/// ```
public struct ObservedHandler: HTTPHandler {
    /// The name events carry (``RequestEvent/handler``).
    public let name: String
    /// The handler that answers.
    public let handler: any HTTPHandler
    /// Told of every request handled.
    public let observer: any RequestObserver

    /// Creates a handler that reports `handler`'s requests to `observer` as `name`.
    public init(name: String, handler: any HTTPHandler, observer: any RequestObserver) {
        self.name = name
        self.handler = handler
        self.observer = observer
    }

    /// What the wrapped handler says.
    public func acceptsBody(_ head: WPHTTPRequest) -> Bool { handler.acceptsBody(head) }
    /// What the wrapped handler says.
    public func servesPreRenderedBody(_ request: WPHTTPRequest) -> Bool { handler.servesPreRenderedBody(request) }

    /// The wrapped handler's answer, reported with its status and duration (as `500` when it threw,
    /// the error rethrown).
    public func handle(_ request: WPHTTPRequest) async throws -> WPHTTPResponse {
        let clock = ContinuousClock()
        let start = clock.now
        do {
            let response = try await handler.handle(request)
            observer.requestHandled(RequestEvent(handler: name, method: request.method, status: response.status,
                                                 durationSeconds: start.duration(to: clock.now).inSeconds))
            return response
        } catch {
            observer.requestHandled(RequestEvent(handler: name, method: request.method, status: 500,
                                                 durationSeconds: start.duration(to: clock.now).inSeconds))
            throw error
        }
    }
}
