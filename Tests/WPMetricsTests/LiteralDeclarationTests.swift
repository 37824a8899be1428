import Testing
import WPTestThreads
@testable import WPMetrics

/// The `StaticString` overloads that declare metrics without `try`: what they create for valid
/// literals, and the message they stop the process with otherwise (the trap itself is
/// `preconditionFailure`; what decides it is the throwing declaration, tested in ValidationTests).
@Suite(.ownThreads, .timeLimit(.minutes(3))) struct LiteralDeclarationTests {
    @Test func literalDeclarationsRegisterWhatTheThrowingOnesRegister() throws {
        let literal = MetricRegistry()
        let requests = literal.counterVec("http_requests_total", help: "Requests.", labelNames: ["method", "code"])
        let inFlight = literal.gauge("http_requests_in_flight", help: "In flight.")
        let served = literal.counter("bytes_served_bytes_total", help: "Bytes.", unit: "bytes")
        let latency = literal.histogram("latency_seconds", help: "Latency.", unit: "seconds", buckets: [0.1, 1])
        let sizes = literal.summary("size_bytes", help: "Sizes.")
        let load = literal.gaugeVec("load_watts", help: "Load.", labelNames: ["device"])
        let byPath = literal.histogramVec("path_seconds", help: "By path.", labelNames: ["path"], buckets: [1])
        let byQueue = literal.summaryVec("queue_seconds", help: "By queue.", labelNames: ["queue"])

        let thrown = MetricRegistry()
        let requests2 = try thrown.counterVec(name: "http_requests_total", help: "Requests.", labelNames: ["method", "code"])
        let inFlight2 = try thrown.gauge(name: "http_requests_in_flight", help: "In flight.")
        let served2 = try thrown.counter(name: "bytes_served_bytes_total", help: "Bytes.", unit: "bytes")
        let latency2 = try thrown.histogram(name: "latency_seconds", help: "Latency.", unit: "seconds", buckets: [0.1, 1])
        _ = try thrown.summary(name: "size_bytes", help: "Sizes.")
        let load2 = try thrown.gaugeVec(name: "load_watts", help: "Load.", labelNames: ["device"])
        let byPath2 = try thrown.histogramVec(name: "path_seconds", help: "By path.", labelNames: ["path"], buckets: [1])
        _ = try thrown.summaryVec(name: "queue_seconds", help: "By queue.", labelNames: ["queue"])

        for (vector, other) in [(requests, requests2)] {
            try vector.labels("GET", "200").increment()
            try other.labels("GET", "200").increment()
        }
        inFlight.set(3); inFlight2.set(3)
        try served.increment(by: 10); try served2.increment(by: 10)
        latency.observe(0.5); latency2.observe(0.5)
        try load.labels("ups1").set(230); try load2.labels("ups1").set(230)
        try byPath.labels("/").observe(2); try byPath2.labels("/").observe(2)
        #expect(sizes.descriptor.name == "size_bytes")
        #expect(byQueue.descriptor.labelNames == ["queue"])
        for format in [ExpositionFormat.text, .openMetrics] {
            #expect(literal.render(format: format) == thrown.render(format: format))
        }
    }

    @Test func theStopMessageNamesTheMistake() {
        let message = MetricRegistry.literalDeclarationFailure(.invalidMetricName("http-requests"))
        #expect(message.contains("http-requests"))
        #expect(message.contains(MetricsError.invalidMetricName("http-requests").description))
        let label = MetricRegistry.literalDeclarationFailure(.invalidLabelName("__reserved", metric: "jobs_total"))
        #expect(label.contains("__reserved") && label.contains("jobs_total"))
    }
}
