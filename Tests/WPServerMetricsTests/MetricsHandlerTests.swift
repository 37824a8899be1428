import Synchronization
import Testing
import WPTestThreads
import WPMetrics
import WPRuntime
import WPServer
@testable import WPServerMetrics
import WPTestSupport

/// A gauge whose value is the number of its collection; the first collection waits until
/// released (it runs on the render thread, so the test can hold a render in progress).
private final class RenderCounter: Collector {
    private let state = Mutex(0)
    private let held = WPConditionLock(false)
    private let descriptor = MetricDescriptor(name: "renders", help: "Renders so far.", type: .gauge)

    var descriptors: [MetricDescriptor] { [descriptor] }
    var renders: Int { state.withLock { $0 } }

    func release() {
        held.withLock { $0 = true }
        held.broadcast()
    }

    func collect() -> [MetricFamily] {
        let number = state.withLock { count in
            count += 1
            return count
        }
        if number == 1 { held.wait(until: Deadline(after: .seconds(120)), for: { $0 }) { _, _ in } }
        guard var family = try? descriptor.makeFamily(), (try? family.append(labelValues: [], value: Double(number))) != nil
        else { return [] }
        return [family]
    }
}

@Suite(.ownThreads, .timeLimit(.minutes(3))) struct MetricsHandlerTests {
    /// A registry whose text rendering is well over WPServer's 1 KiB gzip threshold.
    static func registry() throws -> MetricRegistry {
        let registry = MetricRegistry()
        let jobs = try registry.counterVec(name: "jobs_total", help: "Jobs.", labelNames: ["queue"])
        for queue in 0..<100 { try jobs.labels("queue-\(queue)").increment(by: Double(queue)) }
        return registry
    }

    @Test func theAcceptHeaderChoosesTheFormat() async throws {
        let registry = try Self.registry()
        var router = WPRouter()
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

    /// Requests arriving while a render runs share the next one, which starts after it: each
    /// gets values no older than its arrival, and the registry is rendered twice for six.
    @Test func concurrentRequestsShareTheNextRender() async throws {
        let registry = MetricRegistry()
        let counter = RenderCounter()
        try registry.register(counter)
        let handler = MetricsHandler(registry: registry)
        let request = WPHTTPRequest(method: "GET", target: "/metrics")
        let first = Task { await handler.handle(request) }
        while counter.renders == 0 { try await Task.sleep(for: .milliseconds(1)) }
        let later = (0..<5).map { _ in Task { await handler.handle(request) } }
        while handler.waitingCount < 5 { try await Task.sleep(for: .milliseconds(1)) }
        counter.release()
        #expect(String(decoding: await first.value.body, as: UTF8.self).contains("renders 1\n"))
        for task in later {
            #expect(String(decoding: await task.value.body, as: UTF8.self).contains("renders 2\n"))
        }
        #expect(counter.renders == 2)
    }

    @Test func aRequestWithABodyIsRefusedBeforeItIsRead() async throws {
        var router = WPRouter()
        router.addMetrics("/custom", registry: try Self.registry())
        try await withTestServer(router) { port in
            let client = try await TestHTTPClient.connect(port: port)
            try await client.send("GET /custom HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n\r\nhello")
            #expect(try await client.readResponse().status == 413)
        }
    }
}
