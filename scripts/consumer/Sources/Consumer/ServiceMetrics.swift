import SystemPackage
import WPLogging
import WPMetrics
import WPScheduler
#if os(Linux)
import WPServer
#endif

/// The instruments of a small service, made from the libraries' public API only.
public struct ServiceMetrics: Sendable {
    public let registry = MetricRegistry()
    public let requests: CounterVec
    public let latency: WPHistogram

    public init() throws {
        requests = try registry.counterVec(name: "consumer_requests_total", help: "Requests, by method.",
                                           labelNames: ["method"])
        latency = try registry.histogram(name: "consumer_latency_seconds", help: "Request latency.", unit: "seconds")
    }

    /// Records one request and logs it through `logger`.
    public func record(method: String, seconds: Double, logger: WPLogger) throws {
        try requests.labels(method).increment()
        latency.observe(seconds)
        logger.info("request", ["method": .string(method), "authorization": "Basic dXNlcjpwYXNz"])
    }

    /// The text exposition a scrape of `/metrics` gets.
    public func exposition() -> String {
        String(decoding: registry.render(format: .text), as: UTF8.self)
    }

    /// Writes the text exposition to `descriptor` (swift-system beside wpexporter in one graph).
    public func writeExposition(to descriptor: FileDescriptor) throws {
        _ = try descriptor.writeAll(registry.render(format: .text))
    }

    #if os(Linux)
    /// A handler serving the exposition, for WPServer.
    public func handler() -> some HTTPHandler {
        HandlerFunction { _ in .text(self.exposition()) }
    }
    #endif
}
