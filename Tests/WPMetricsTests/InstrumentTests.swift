import Testing
import WPTestThreads
import WPMetrics
import WPTestSupport

@Suite(.ownThreads, .timeLimit(.minutes(3))) struct InstrumentTests {
    @Test func counterOnlyGoesUp() throws {
        let counter = try WPCounter(name: "c_total", help: "h")
        counter.increment()
        try counter.increment(by: 2.5)
        #expect(throws: MetricsError.negativeCounterIncrement(metric: "c_total", amount: -1)) {
            try counter.increment(by: -1)
        }
        #expect(throws: MetricsError.self) { try counter.increment(by: .nan) }
        #expect(counter.value == 3.5)
    }

    @Test func gaugeMovesBothWays() throws {
        let gauge = try WPGauge(name: "g", help: "h")
        gauge.set(10)
        gauge.increment()
        gauge.decrement(by: 4)
        #expect(gauge.value == 7)
        gauge.set(-.infinity)
        #expect(gauge.value == -.infinity)
    }

    @Test func histogramCountsIntoBuckets() throws {
        let histogram = try WPHistogram(name: "h", help: "h", buckets: [1, 2, 5])
        for value in [0.5, 1, 1.5, 2, 3, 10, .nan] { histogram.observe(value) }
        let snapshot = histogram.snapshot
        #expect(snapshot.upperBounds == [1, 2, 5, .infinity])
        #expect(snapshot.cumulativeCounts == [2, 4, 5, 6])
        #expect(snapshot.count == 6)
        #expect(snapshot.sum == 18)
    }

    @Test func histogramRejectsBadBuckets() {
        #expect(throws: MetricsError.self) { try WPHistogram(name: "h", help: "h", buckets: [2, 1]) }
        #expect(throws: MetricsError.self) { try WPHistogram(name: "h", help: "h", buckets: [1, 1]) }
        #expect(throws: MetricsError.self) { try WPHistogram(name: "h", help: "h", buckets: [.nan]) }
    }

    @Test func bucketHelpers() throws {
        #expect(try Buckets.linear(start: 1, width: 2, count: 3) == [1, 3, 5])
        #expect(try Buckets.exponential(start: 1, factor: 10, count: 3) == [1, 10, 100])
        #expect(throws: MetricsError.self) { try Buckets.linear(start: 1, width: 0, count: 3) }
        #expect(throws: MetricsError.self) { try Buckets.linear(start: 1, width: 1, count: 0) }
        #expect(throws: MetricsError.self) { try Buckets.exponential(start: 0, factor: 2, count: 3) }
        #expect(throws: MetricsError.self) { try Buckets.exponential(start: 1, factor: 1, count: 3) }
    }

    @Test func vectorCreatesRemovesAndResetsChildren() throws {
        let vec = try GaugeVec(name: "g", help: "h", labelNames: ["device_id", "device_name"])
        try vec.labels("2", "b").set(2)
        try vec.labels("1", "a").set(1)
        try vec.labels("1", "a").increment()
        #expect(try vec.labels("1", "a").value == 2)
        #expect(throws: MetricsError.labelCountMismatch(metric: "g", expected: 2, got: 1)) { try vec.labels("1") }
        let family = try #require(vec.collect().first)
        #expect(family.samples.map(\.labelValues) == [["1", "a"], ["2", "b"]])
        #expect(vec.remove("2", "b"))
        #expect(!vec.remove("2", "b"))
        #expect(vec.count == 1)
        vec.reset()
        #expect(vec.collect().first?.samples.isEmpty == true)
    }

    @Test func infoAndStateSet() throws {
        let info = try Info.build(namespace: "svc", version: "1.0", revision: "abc")
        let family = try #require(info.collect().first)
        #expect(family.name == "svc_build")
        #expect(family.labelNames == ["revision", "version"])
        #expect(family.samples.first?.value == .gauge(1))
        let mode = try StateSet(name: "mode", help: "h", states: ["b", "a"])
        try mode.select("b")
        try mode.set("a", true)
        #expect(mode.current == ["a", "b"])
        try mode.select("a")
        #expect(throws: MetricsError.self) { try mode.select("zzz") }
        let states = try #require(mode.collect().first)
        #expect(states.samples.map(\.value) == [.gauge(1), .gauge(0)])
    }

    @Test func registryRejectsDuplicatesAndConflicts() throws {
        let registry = MetricRegistry()
        _ = try registry.counter(name: "x_total", help: "h")
        #expect(throws: MetricsError.alreadyRegistered("x_total")) { try registry.counter(name: "x_total", help: "h") }
        #expect(throws: MetricsError.conflictingRegistration("x_total", reason: "a metric of that name is registered with a different help text")) {
            try registry.counter(name: "x_total", help: "other")
        }
        #expect(throws: MetricsError.conflictingRegistration("x_total", reason: "a counter of that name is registered; this one is a gauge")) {
            try registry.gauge(name: "x_total", help: "h")
        }
        do {
            _ = try registry.gauge(name: "x_total", help: "h")
        } catch {
            #expect("\(error)" == "cannot register x_total: a counter of that name is registered; this one is a gauge",
                    "one sentence naming the metric and the conflict")
        }
        // `x` and `x_total` are the same OpenMetrics family.
        #expect(throws: MetricsError.self) { try registry.counter(name: "x", help: "h") }
        let gauge = try registry.gauge(name: "y", help: "h")
        #expect(registry.unregister(gauge))
        _ = try registry.gauge(name: "y", help: "h")
    }

    @Test func registryCollectsSortedFamilies() throws {
        let registry = MetricRegistry()
        _ = try registry.gauge(name: "b", help: "h")
        _ = try registry.gauge(name: "a", help: "h")
        _ = try registry.counter(name: "c_total", help: "h")
        #expect(registry.collect().map(\.name) == ["a", "b", "c_total"])
    }
}
