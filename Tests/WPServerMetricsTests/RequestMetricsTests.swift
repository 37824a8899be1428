import Testing
import WPTestThreads
import WPMetrics
import WPServer
import WPServerMetrics
import WPTestSupport

@Suite(.ownThreads, .timeLimit(.minutes(3))) struct RequestMetricsTests {
    @Test func handledRequestsAreCountedByHandlerAndCodeAndTimed() throws {
        let registry = MetricRegistry()
        let metrics = try RequestMetrics(namespace: "svc", registry: registry, buckets: [0.1, 1])
        metrics.requestHandled(RequestEvent(handler: "/metrics", method: "GET", status: 200, durationSeconds: 0.05))
        metrics.requestHandled(RequestEvent(handler: "/metrics", method: "GET", status: 200, durationSeconds: 0.5))
        metrics.requestHandled(RequestEvent(handler: "/", method: "HEAD", status: 404, durationSeconds: 0.001))
        let text = String(decoding: registry.render(format: .text), as: UTF8.self)
        #expect(text.contains("svc_http_requests_total{handler=\"/metrics\",code=\"200\"} 2\n"))
        #expect(text.contains("svc_http_requests_total{handler=\"/\",code=\"404\"} 1\n"))
        #expect(text.contains("svc_http_request_duration_seconds_bucket{handler=\"/metrics\",le=\"0.1\"} 1\n"))
        #expect(text.contains("svc_http_request_duration_seconds_count{handler=\"/metrics\"} 2\n"))
    }

    @Test func anObservedHandlerServedByWPServerReportsToIt() async throws {
        let registry = MetricRegistry()
        let metrics = try RequestMetrics(namespace: "svc", registry: registry)
        let handler = ObservedHandler(name: "/metrics", handler: HandlerFunction { _ in
            .text(String(decoding: registry.render(format: .text), as: UTF8.self))
        }, observer: metrics)
        try await withTestServer(handler) { port in
            let client = try await TestHTTPClient.connect(port: port)
            try await client.send("GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n")
            #expect(try await client.readResponse().status == 200)
        }
        #expect(try metrics.requests.labels("/metrics", "200").value == 1)
    }

    @Test func anInvalidNamespaceIsRejected() {
        #expect(throws: MetricsError.self) { try RequestMetrics(namespace: "bad-name", registry: MetricRegistry()) }
    }
}
