/// Routes requests by method and exact path to handlers.
///
/// Unknown paths get `404`; a known path with another method gets `405` with an `Allow`
/// header listing the registered methods. A route for `GET` also answers `HEAD` (the server
/// drops the body). With an observer, every routed request is reported under its route path;
/// requests answered `404`/`405` are reported under the handler name `unmatched`.
///
/// A route registered with `takesBody: false` has requests carrying a body refused with `413`
/// from their head alone (``HTTPHandler/acceptsBody(_:)``); when no route takes a body,
/// unmatched requests with one are refused the same way.
///
/// ```swift
/// var router = WPRouter(observer: requestMetrics)
/// router.add("GET", "/metrics", metricsHandler)
/// router.get("/healthz") { _ in .text("ok\n") }
/// let server = WPHTTPServer(configuration: .init(port: 9090), handler: router, logger: log)
/// ```
public struct WPRouter: HTTPHandler {
    private var routes: [String: [String: any HTTPHandler]] = [:]
    /// "METHOD path" of the routes registered with `takesBody: false`.
    private var bodiless: Set<String> = []
    private var anyTakesBody = false
    private let observer: (any RequestObserver)?

    /// Creates a router without routes.
    ///
    /// - Parameter observer: Receives one ``RequestEvent`` per request, named after the route.
    public init(observer: (any RequestObserver)? = nil) {
        self.observer = observer
    }

    /// Registers `handler` for `method` (case-sensitive, e.g. `GET`) on the exact `path`.
    /// A later registration for the same method and path replaces the earlier one.
    ///
    /// - Parameters:
    ///   - method: The method, case-sensitive (`GET`).
    ///   - path: The exact path.
    ///   - handler: Answers the requests.
    ///   - takesBody: `false` refuses requests with a body (`413`) before reading it.
    public mutating func add(_ method: String, _ path: String, _ handler: any HTTPHandler, takesBody: Bool = true) {
        let wrapped: any HTTPHandler = observer.map { ObservedHandler(name: path, handler: handler, observer: $0) } ?? handler
        routes[path, default: [:]][method] = wrapped
        if takesBody {
            bodiless.remove(method + " " + path)
            anyTakesBody = true
        } else {
            bodiless.insert(method + " " + path)
        }
    }

    /// Registers a closure for `GET` (and so `HEAD`) on `path`.
    ///
    /// - Parameters:
    ///   - path: The exact path.
    ///   - takesBody: `false` refuses requests with a body (`413`) before reading it.
    ///   - preRendered: the closure only hands back bytes already rendered
    ///     (``HTTPHandler/servesPreRenderedBody(_:)``): it may run on the event loop.
    ///   - body: Answers each request.
    public mutating func get(_ path: String, takesBody: Bool = true, preRendered: Bool = false,
                             _ body: @escaping @Sendable (WPHTTPRequest) async throws -> WPHTTPResponse) {
        add("GET", path, HandlerFunction(preRendered: preRendered, body), takesBody: takesBody)
    }

    /// Registers a closure for `POST` on `path`.
    public mutating func post(_ path: String, _ body: @escaping @Sendable (WPHTTPRequest) async throws -> WPHTTPResponse) {
        add("POST", path, HandlerFunction(body))
    }

    /// The paths that have at least one route.
    public var paths: Set<String> { Set(routes.keys) }

    /// Whether the route for the head's method and path takes a body (see `takesBody`); without
    /// such a route, whether any route does.
    public func acceptsBody(_ head: WPHTTPRequest) -> Bool {
        guard let methods = routes[head.path] else { return anyTakesBody }
        let method = methods[head.method] == nil && head.method == "HEAD" ? "GET" : head.method
        guard methods[method] != nil else { return anyTakesBody }
        return !bodiless.contains(method + " " + head.path)
    }

    /// What the route's handler says (``HTTPHandler/servesPreRenderedBody(_:)``); `false`
    /// for `404` and `405` answers, which are tiny.
    public func servesPreRenderedBody(_ request: WPHTTPRequest) -> Bool {
        guard let methods = routes[request.path],
              let handler = methods[request.method] ?? (request.method == "HEAD" ? methods["GET"] : nil) else { return false }
        return handler.servesPreRenderedBody(request)
    }

    /// The route's answer (`HEAD` served by the `GET` route); `404` for a path without routes,
    /// `405` with `Allow` for a method without one.
    public func handle(_ request: WPHTTPRequest) async throws -> WPHTTPResponse {
        guard let methods = routes[request.path] else {
            return report(request, .text("not found\n", status: 404))
        }
        if let handler = methods[request.method] ?? (request.method == "HEAD" ? methods["GET"] : nil) {
            return try await handler.handle(request)
        }
        var allowed = Set(methods.keys)
        if allowed.contains("GET") { allowed.insert("HEAD") }
        var response = WPHTTPResponse.text("method not allowed\n", status: 405)
        response.headers.set(name: "Allow", value: allowed.sorted().joined(separator: ", "))
        return report(request, response)
    }

    private func report(_ request: WPHTTPRequest, _ response: WPHTTPResponse) -> WPHTTPResponse {
        observer?.requestHandled(RequestEvent(handler: "unmatched", method: request.method,
                                              status: response.status, durationSeconds: 0))
        return response
    }
}
