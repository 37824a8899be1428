import WPMetrics
import WPServer

/// The `/metrics` endpoint of a registry, as an ``HTTPHandler`` for WPServer: one line to serve
/// a ``MetricRegistry``.
///
/// ```swift
/// var router = Router()
/// router.addMetrics(registry: registry)   // GET /metrics
/// ```
///
/// Each request renders the registry in the format its `Accept` header prefers
/// (``ExpositionFormat/negotiate(accept:)``: OpenMetrics 1.0.0 for Prometheus 2.x and 3.x, the
/// text format 0.0.4 for anything else) with the matching `Content-Type` and `Vary: Accept`.
/// Compression is the server's: WPServer gzips a body of at least
/// `HTTPServer.Configuration.gzipMinimumBytes` (1 KiB by default) when `Accept-Encoding` allows
/// it, and says so in `Content-Encoding` and `Vary`. A request with a body is refused (`413`).
public struct MetricsHandler: HTTPHandler {
    /// The registry rendered on every request.
    public let registry: MetricRegistry

    /// Creates the handler.
    /// - Parameter registry: The registry to serve.
    public init(registry: MetricRegistry) {
        self.registry = registry
    }

    public func acceptsBody(_ head: HTTPRequest) -> Bool { false }

    public func handle(_ request: HTTPRequest) -> HTTPResponse {
        let format = ExpositionFormat.negotiate(accept: request.headers["Accept"])
        var response = HTTPResponse(status: 200, body: registry.render(format: format))
        response.headers.set(name: "Content-Type", value: format.contentType)
        response.headers.set(name: "Vary", value: "Accept")
        return response
    }
}

extension Router {
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
