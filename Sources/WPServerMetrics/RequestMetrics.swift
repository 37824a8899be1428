public import WPMetrics
public import WPServer

/// The request metrics of a WPServer, as a `RequestObserver` to hand to the server
/// (through `ObservedHandler`, `WPRouter(observer:)` or `WPHTTPServer(observer:)`): every handled
/// request counts in `<namespace>_http_requests_total{handler,code}` and its handling time goes
/// into `<namespace>_http_request_duration_seconds{handler}`, both registered in `registry`.
/// ``init(requestsName:help:durationName:registry:buckets:)`` names the families freely, and
/// leaves the histogram out when `durationName` is `nil` (the exporter's own
/// `winpower_exporter_requests_total`).
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
    /// Seconds spent handling requests, by handler; `nil` when not measured.
    public let duration: HistogramVec?

    /// Creates the metrics and registers them in `registry`.
    ///
    /// - Parameters:
    ///   - namespace: The metric name prefix, e.g. `myservice` (valid metric name characters).
    ///   - registry: Where the two families are registered.
    ///   - buckets: The duration histogram's buckets, in seconds.
    /// - Throws: `MetricsError` for an invalid namespace or names already registered.
    public convenience init(namespace: String, registry: MetricRegistry,
                            buckets: [Double] = [0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1, 5]) throws(MetricsError) {
        try self.init(requestsName: namespace + "_http_requests_total",
                      help: "HTTP requests handled, by handler and status code.",
                      durationName: namespace + "_http_request_duration_seconds", registry: registry, buckets: buckets)
    }

    /// Creates the metrics under names of your own and registers them in `registry`.
    ///
    /// - Parameters:
    ///   - requestsName: The request counter's name (`…_total`), labelled `handler` and `code`.
    ///   - help: The request counter's help text.
    ///   - durationName: The duration histogram's name (labelled `handler`, unit seconds), or
    ///     `nil` for none.
    ///   - registry: Where the families are registered.
    ///   - buckets: The duration histogram's buckets, in seconds.
    /// - Throws: `MetricsError` for an invalid name or names already registered.
    public init(requestsName: String, help: String, durationName: String?, registry: MetricRegistry,
                buckets: [Double] = [0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1, 5]) throws(MetricsError) {
        requests = try registry.counterVec(name: requestsName, help: help, labelNames: ["handler", "code"])
        duration = try durationName.map { name throws(MetricsError) in
            try registry.histogramVec(name: name, help: "Time spent handling HTTP requests, by handler.", unit: "seconds",
                                      labelNames: ["handler"], buckets: buckets)
        }
    }

    /// Counts `event` by handler and status code, and observes its duration when there is a
    /// histogram.
    public func requestHandled(_ event: RequestEvent) {
        // Two and one label values are always supplied: the error paths are unreachable.
        try? requests.labels(event.handler, String(event.status)).increment()
        try? duration?.labels(event.handler).observe(event.durationSeconds)
    }
}
