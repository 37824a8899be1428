import Synchronization
import Testing
import WPTestThreads
import WPMetrics

/// Labels by name, durations, callback metrics and unregistering struct collectors.
@Suite(.ownThreads, .timeLimit(.minutes(3))) struct ErgonomicsTests {
    private func text(_ registry: MetricRegistry) -> String {
        String(decoding: registry.render(format: .text), as: UTF8.self)
    }

    @Test func labelsByNameReachTheSameChildAsPositionalLabels() throws {
        let registry = MetricRegistry()
        let requests = try registry.counterVec(name: "requests_total", help: "Requests.", labelNames: ["method", "code"])
        try requests.labels(["code": "200", "method": "GET"]).increment()
        try requests.labels("GET", "200").increment()
        #expect(try requests.labels(["method": "GET", "code": "200"]).value == 2)
        #expect(throws: MetricsError.invalidLabelName("path", metric: "requests_total")) {
            try requests.labels(["method": "GET", "path": "/"])
        }
        #expect(throws: MetricsError.labelCountMismatch(metric: "requests_total", expected: 2, got: 1)) {
            try requests.labels(["method": "GET"])
        }
    }

    @Test func durationsAreObservedInSeconds() throws {
        let registry = MetricRegistry()
        let latency = try registry.histogram(name: "latency_seconds", help: "Latency.", buckets: [0.1, 1])
        latency.observe(Duration.milliseconds(250))
        latency.observe(Duration.seconds(2))
        #expect(latency.snapshot.count == 2)
        #expect(latency.snapshot.sum == 2.25)
        let summary = try registry.summary(name: "work_seconds", help: "Work.")
        summary.observe(Duration.microseconds(1_500))
        #expect(summary.snapshot.sum == 0.0015)
    }

    @Test func callbackMetricsReadTheirValueAtEachScrape() throws {
        let registry = MetricRegistry()
        let depth = Mutex(3.0)
        try registry.gaugeFunc(name: "queue_depth", help: "Jobs waiting.") { depth.withLock { $0 } }
        try registry.counterFunc(name: "cache_hits_total", help: "Hits.") { 42 }
        #expect(text(registry).contains("queue_depth 3\n"))
        depth.withLock { $0 = 7 }
        #expect(text(registry).contains("queue_depth 7\n"))
        #expect(text(registry).contains("# TYPE cache_hits_total counter\ncache_hits_total 42\n"))
        #expect(throws: MetricsError.valueKindMismatch(metric: "h", expected: .gauge)) {
            try CallbackMetric(name: "h", help: "H.", type: .histogram) { 0 }
        }
    }

    @Test func anyCollectorCanBeUnregisteredByAFamilyName() throws {
        let registry = MetricRegistry()
        try registry.gaugeFunc(name: "queue_depth", help: "Jobs waiting.") { 1 }
        #expect(registry.unregister(named: "queue_depth"))
        #expect(!text(registry).contains("queue_depth"))
        #expect(!registry.unregister(named: "queue_depth"))
        try registry.gaugeFunc(name: "queue_depth", help: "Registered again.") { 2 }
        #expect(text(registry).contains("queue_depth 2\n"))
    }
}
