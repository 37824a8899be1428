import Testing
import WPTestThreads
@testable import WPMetrics

/// The registry path: label lookup (one, two, three values without an array; striped tables),
/// the children's kept order, and direct rendering of counter and gauge vectors, which must
/// write exactly what encoding `collect()` writes.
@Suite(.ownThreads, .timeLimit(.minutes(3))) struct RegistryPathTests {
    /// What the registry rendered before direct rendering: the encoding of `collect()`.
    static func encoded(_ registry: MetricRegistry, _ format: ExpositionFormat) -> String {
        String(decoding: ExpositionEncoder(format: format).encode(registry.collect()), as: UTF8.self)
    }

    static func rendered(_ registry: MetricRegistry, _ format: ExpositionFormat) -> String {
        String(decoding: registry.render(format: format), as: UTF8.self)
    }

    static func expectSameRendering(_ registry: MetricRegistry, sourceLocation: SourceLocation = #_sourceLocation) {
        for format in [ExpositionFormat.text, .openMetrics] {
            #expect(rendered(registry, format) == encoded(registry, format), sourceLocation: sourceLocation)
        }
    }

    @Test func directRenderingWritesWhatTheEncoderWritesForCollect() throws {
        let registry = MetricRegistry()
        let requests = try registry.counterVec(name: "requests_total", help: "Requests \"served\"\\n.",
                                               labelNames: ["method", "path"])
        let bare = try registry.counterVec(name: "bare", help: "", labelNames: ["a"])  // no _total: OpenMetrics adds it
        let load = try registry.gaugeVec(name: "load_watts", help: "Load.", unit: "watts", labelNames: ["id", "name", "kind"])
        let latency = try registry.histogramVec(name: "latency_seconds", help: "h", labelNames: ["path"], buckets: [0.1, 1])
        let plain = try registry.gauge(name: "a_plain", help: "h")
        try requests.labels("GET", "/a\"b\\c\nd").increment(by: 3)
        try requests.labels("POST", "/é").increment()
        try requests.labels("GET", "/").increment(by: 0.25)
        try bare.labels("x").increment()
        for index in (0..<50).reversed() {
            try load.labels("\(index)", "UPS \(index % 7)", index.isMultiple(of: 2) ? "ups" : "pdu").set(Double(index) / 3)
        }
        try load.labels("nan", "n", "k").set(.nan)
        try load.labels("inf", "n", "k").set(-.infinity)
        try latency.labels("/").observe(0.5)
        plain.set(2)
        Self.expectSameRendering(registry)
        #expect(Self.rendered(registry, .openMetrics).contains("bare_total{a=\"x\"} 1\n"))
        #expect(Self.rendered(registry, .text).contains("requests_total{method=\"GET\",path=\"/a\\\"b\\\\c\\nd\"} 3\n"))
    }

    @Test func childrenAddedAndRemovedBetweenScrapesKeepTheOrder() throws {
        let registry = MetricRegistry()
        let vector = try registry.gaugeVec(name: "g", help: "h", labelNames: ["k", "v"])
        var expectedKeys: Set<String> = []
        for round in 0..<6 {
            for index in stride(from: round, to: 300, by: 7) {
                try vector.labels("k\(index % 13)", "v\((index * 31) % 97)").set(Double(index))
                expectedKeys.insert("k\(index % 13)/v\((index * 31) % 97)")
            }
            if round == 3 {
                #expect(vector.remove("k3", "v93"))
                expectedKeys.remove("k3/v93")
                vector.remove("k4", "v27")
                expectedKeys.remove("k4/v27")
            }
            Self.expectSameRendering(registry)
            let family = try #require(vector.collect().first)
            let keys = family.samples.map { $0.labelValues.joined(separator: "/") }
            var sorted = family
            sorted.sortSamples()
            #expect(family.samples == sorted.samples)
            #expect(Set(keys) == expectedKeys)
            #expect(keys.count == expectedKeys.count)
            #expect(vector.count == expectedKeys.count)
        }
        // A removed child comes back as a new child, with a fresh value.
        try vector.labels("k3", "v93").set(1)
        #expect(try vector.labels("k3", "v93").value == 1)
        vector.reset()
        #expect(vector.count == 0)
        #expect(vector.collect().first?.samples.isEmpty == true)
        Self.expectSameRendering(registry)
    }

    @Test func aRegisteredCurriedVectorRendersOnlyItsChildren() throws {
        let root = try CounterVec(name: "jobs_total", help: "h", labelNames: ["queue", "outcome"])
        let fast = try root.curry(["queue": "fast"])
        let registry = MetricRegistry()
        try registry.register(fast)
        try fast.labels("ok").increment()
        try root.labels("slow", "ok").increment()
        try root.labels("fast", "failed").increment()
        Self.expectSameRendering(registry)
        let text = Self.rendered(registry, .text)
        #expect(text.contains("jobs_total{queue=\"fast\",outcome=\"ok\"} 1\n"))
        #expect(!text.contains("slow"))
        fast.reset()
        #expect(root.count == 1)
        #expect(fast.count == 0)
        Self.expectSameRendering(registry)
    }

    @Test func oneTwoAndThreeValuesFindTheChildTheArrayFinds() throws {
        let one = try GaugeVec(name: "one", help: "h", labelNames: ["a"])
        let two = try GaugeVec(name: "two", help: "h", labelNames: ["a", "b"])
        let three = try GaugeVec(name: "three", help: "h", labelNames: ["a", "b", "c"])
        #expect(try one.labels("x") === one.labels(["x"]))
        #expect(try two.labels("x", "y") === two.labels(["x", "y"]))
        #expect(try two.labels("x", "y") !== two.labels("y", "x"))
        #expect(try three.labels("x", "y", "z") === three.labels(["x", "y", "z"]))
        #expect(try three.labels("x", "y", "z") === three.checkedLabels("c", "a", "b").labels("z", "x", "y"))
        #expect(try two.labels("x", "y") === two.checkedLabels("b", "a").labels("y", "x"))
        // Canonically equivalent strings are one label value, as they were as dictionary keys.
        #expect(try one.labels("\u{E9}") === one.labels("e\u{301}"))
        #expect(one.count == 2)
        #expect(throws: MetricsError.labelCountMismatch(metric: "two", expected: 2, got: 1)) { try two.labels("x") }
        #expect(throws: MetricsError.labelCountMismatch(metric: "one", expected: 1, got: 2)) { try one.labels("x", "y") }
        #expect(throws: MetricsError.labelCountMismatch(metric: "two", expected: 2, got: 3)) { try two.labels("x", "y", "z") }
        let curried = try three.curry(["b": "y"])
        #expect(try curried.labels("x", "z") === three.labels("x", "y", "z"))
        #expect(throws: MetricsError.labelCountMismatch(metric: "three", expected: 2, got: 3)) {
            try curried.labels("x", "y", "z")
        }
    }

    @Test func valuesWhoseHashesCollideAreKeptApart() {
        let table = ChildTable(lineNames: nil)
        func entry(_ values: [String]) -> ChildEntry {
            table.entry(hash: 42, matches: { $0.values == values }, values: { values },
                        makeChild: { WPGauge(descriptor: MetricDescriptor(name: "g", help: "", type: .gauge)) })
        }
        let first = entry(["a"])
        let second = entry(["b"])
        let third = entry(["c"])
        #expect(first !== second && second !== third)
        #expect(entry(["a"]) === first)
        #expect(entry(["b"]) === second)
        #expect(table.count == 3)
        #expect(table.sorted().map(\.values) == [["a"], ["b"], ["c"]])
        // remove() hashes the values itself, so entries stored under a made-up hash are removed by condition.
        table.removeAll { $0.values == ["b"] }
        #expect(table.count == 2)
        #expect(entry(["c"]) === third)
        #expect(table.sorted().map(\.values) == [["a"], ["c"]])
    }

    @Test func threadsCreatingTheSameChildrenGetOneEach() async throws {
        let vector = try CounterVec(name: "hits_total", help: "h", labelNames: ["a", "b"])
        let tasks = 4
        let rounds = 2_000
        let children = try await withThrowingTaskGroup(of: [ObjectIdentifier].self) { group in
            for _ in 0..<tasks {
                group.addTask {
                    var seen: [ObjectIdentifier] = []
                    for round in 0..<rounds {
                        let child = try vector.labels("a\(round % 50)", "b\(round % 3)")
                        child.increment()
                        if round < 150 { seen.append(ObjectIdentifier(child)) }
                    }
                    return seen
                }
            }
            return try await group.reduce(into: [[ObjectIdentifier]]()) { $0.append($1) }
        }
        #expect(Set(children.map { $0 }).count == 1)  // every task saw the same child per round
        #expect(vector.count == 150)
        let family = try #require(vector.collect().first)
        #expect(family.samples.count == 150)
        let total = family.samples.reduce(0.0) { sum, sample in
            guard case .counter(let value) = sample.value else { return sum }
            return sum + value
        }
        #expect(total == Double(tasks * rounds))
    }
}
