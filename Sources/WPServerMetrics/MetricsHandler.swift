public import WPMetrics
public import WPServer

/// The `/metrics` endpoint of a registry, as an `HTTPHandler` for WPServer: one line to serve
/// a `MetricRegistry`.
///
/// ```swift
/// var router = WPRouter()
/// router.addMetrics(registry: registry)   // GET /metrics
/// ```
///
/// Each request is answered with the registry rendered in the format its `Accept` header
/// prefers (`ExpositionFormat.negotiate(accept:)`: OpenMetrics 1.0.0 for Prometheus 2.x and
/// 3.x, the text format 0.0.4 for anything else) with the matching `Content-Type` and
/// `Vary: Accept`, gzip-compressed (a body of at least 1 KiB) when `Accept-Encoding` allows it.
///
/// Rendering and compressing run on a thread of the handler's own (`metrics-render`), never on
/// the server's event loop or Swift's pool, so the server's other routes are answered while a
/// large registry renders; concurrent requests share renders: one arriving while a render is
/// under way waits for the next one (never older values than at its arrival) together with
/// every other request arriving meanwhile. A request with a body is refused (`413`).
public struct MetricsHandler: HTTPHandler {
    /// The registry rendered for the requests.
    public let registry: MetricRegistry
    private let shared: SharedRender

    /// Creates the handler.
    /// - Parameter registry: The registry to serve.
    public init(registry: MetricRegistry) {
        self.registry = registry
        self.shared = SharedRender(registry: registry)
    }

    /// `false`: a request with a body is refused (`413`).
    public func acceptsBody(_ head: WPHTTPRequest) -> Bool { false }

    /// The handler itself only waits for the render thread: it may run on the event loop.
    public func servesPreRenderedBody(_ request: WPHTTPRequest) -> Bool { true }

    /// The registry rendered in the negotiated format, gzip-compressed when the request allows it.
    public func handle(_ request: WPHTTPRequest) async -> WPHTTPResponse {
        let format = ExpositionFormat.negotiate(accept: request.headers["Accept"])
        let body = await shared.body(SharedRender.Kind(format: format, gzip: ContentCoding.acceptsGzip(request.headers)))
        var response = WPHTTPResponse(status: 200, body: body.bytes)
        response.headers.set(name: "Content-Type", value: format.contentType)
        if body.gzipped {
            response.headers.set(name: "Content-Encoding", value: "gzip")
            response.headers.set(name: "Vary", value: "Accept, Accept-Encoding")
        } else {
            response.headers.set(name: "Vary", value: "Accept")
        }
        return response
    }

    /// Requests waiting for a render not yet started (for tests).
    var waitingCount: Int { shared.waitingCount }
}

extension WPRouter {
    /// Serves `registry` on `GET` (and `HEAD`) `path` with a ``MetricsHandler``; requests with
    /// a body are refused before it is read.
    ///
    /// - Parameters:
    ///   - path: The path, `/metrics` by default.
    ///   - registry: The registry to serve.
    public mutating func addMetrics(_ path: String = "/metrics", registry: MetricRegistry) {
        add("GET", path, MetricsHandler(registry: registry), takesBody: false)
    }
}
