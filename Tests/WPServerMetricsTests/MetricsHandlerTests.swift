import Testing
import WPMetrics
import WPServer
import WPServerMetrics
import WPTestSupport

@Suite(.timeLimit(.minutes(3))) struct MetricsHandlerTests {
    /// A registry whose text rendering is well over WPServer's 1 KiB gzip threshold.
    static func registry() throws -> MetricRegistry {
        let registry = MetricRegistry()
        let jobs = try registry.counterVec(name: "jobs_total", help: "Jobs.", labelNames: ["queue"])
        for queue in 0..<100 { try jobs.labels("queue-\(queue)").increment(by: Double(queue)) }
        return registry
    }

    @Test func theAcceptHeaderChoosesTheFormat() async throws {
        let registry = try Self.registry()
        var router = Router()
        router.addMetrics(registry: registry)
        try await withTestServer(router) { port in
            let client = try await TestHTTPClient.connect(port: port)
            try await client.send("GET /metrics HTTP/1.1\r\nHost: x\r\n"
                                  + "Accept: application/openmetrics-text;version=1.0.0,text/plain;version=0.0.4;q=0.5\r\n\r\n")
            let openMetrics = try await client.readResponse()
            #expect(openMetrics.status == 200)
            #expect(openMetrics.header("Content-Type") == ExpositionFormat.openMetrics.contentType)
            #expect(openMetrics.header("Content-Encoding") == nil)
            #expect(openMetrics.body == registry.render(format: .openMetrics))
            #expect(openMetrics.text.hasSuffix("# EOF\n"))

            try await client.send("GET /metrics HTTP/1.1\r\nHost: x\r\nAccept: */*\r\n\r\n")
            let text = try await client.readResponse()
            #expect(text.header("Content-Type") == ExpositionFormat.text.contentType)
            #expect(text.body == registry.render(format: .text))
        }
    }

    @Test func aClientThatAcceptsGzipGetsItCompressed() async throws {
        let registry = try Self.registry()
        try await withTestServer(MetricsHandler(registry: registry)) { port in
            let client = try await TestHTTPClient.connect(port: port)
            try await client.send("GET /metrics HTTP/1.1\r\nHost: x\r\nAccept-Encoding: gzip\r\n\r\n")
            let response = try await client.readResponse()
            #expect(response.status == 200)
            #expect(response.header("Content-Encoding") == "gzip")
            #expect(response.header("Content-Type") == ExpositionFormat.text.contentType)
            #expect(Array(response.body.prefix(2)) == [0x1f, 0x8b])  // a gzip member
            #expect(response.body.count < registry.render(format: .text).count)
        }
    }

    @Test func aRequestWithABodyIsRefusedBeforeItIsRead() async throws {
        var router = Router()
        router.addMetrics("/custom", registry: try Self.registry())
        try await withTestServer(router) { port in
            let client = try await TestHTTPClient.connect(port: port)
            try await client.send("GET /custom HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n\r\nhello")
            #expect(try await client.readResponse().status == 413)
        }
    }
}
