import WPRuntime
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

    public func acceptsBody(_ head: WPHTTPRequest) -> Bool { handler.acceptsBody(head) }
    public func servesPreRenderedBody(_ request: WPHTTPRequest) -> Bool { handler.servesPreRenderedBody(request) }

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
