import WPMetrics
import WPServer

/// The request metrics of a WPServer, as a ``RequestObserver`` to hand to the server
/// (through `ObservedHandler`): every handled request counts in
/// `<namespace>_http_requests_total{handler,code}` and its handling time goes into
/// `<namespace>_http_request_duration_seconds{handler}`, both registered in `registry`.
///
/// ```swift
/// let registry = MetricRegistry()
/// let requestMetrics = try RequestMetrics(namespace: "myservice", registry: registry)
/// let handler = ObservedHandler(name: "/metrics", handler: metricsHandler, observer: requestMetrics)
/// ```
///
/// Label values are the server's handler names and status codes, so their number stays small.
public final class RequestMetrics: RequestObserver {
    /// Requests handled, by handler and status code.
    public let requests: CounterVec
    /// Seconds spent handling requests, by handler.
    public let duration: HistogramVec

    /// Creates the metrics and registers them in `registry`.
    ///
    /// - Parameters:
    ///   - namespace: The metric name prefix, e.g. `myservice` (valid metric name characters).
    ///   - registry: Where the two families are registered.
    ///   - buckets: The duration histogram's buckets, in seconds.
    /// - Throws: ``MetricsError`` for an invalid namespace or names already registered.
    public init(namespace: String, registry: MetricRegistry,
                buckets: [Double] = [0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1, 5]) throws(MetricsError) {
        requests = try registry.counterVec(name: namespace + "_http_requests_total",
                                           help: "HTTP requests handled, by handler and status code.",
                                           labelNames: ["handler", "code"])
        duration = try registry.histogramVec(name: namespace + "_http_request_duration_seconds",
                                             help: "Time spent handling HTTP requests, by handler.", unit: "seconds",
                                             labelNames: ["handler"], buckets: buckets)
    }

    public func requestHandled(_ event: RequestEvent) {
        // Two and one label values are always supplied: the error paths are unreachable.
        try? requests.labels(event.handler, String(event.status)).increment()
        try? duration.labels(event.handler).observe(event.durationSeconds)
    }
}
