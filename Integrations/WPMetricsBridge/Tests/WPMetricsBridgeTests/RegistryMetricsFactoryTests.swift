import Metrics
import Synchronization
import Testing
import WPMetrics
import WPMetricsBridge

/// Collects the problems a factory reports.
final class ProblemLog: Sendable {
    private let stored = Mutex<[RegistryMetricsFactory.Problem]>([])
    var problems: [RegistryMetricsFactory.Problem] { stored.withLock { $0 } }
    func append(_ problem: RegistryMetricsFactory.Problem) { stored.withLock { $0.append(problem) } }
}

@Suite(.timeLimit(.minutes(3))) struct RegistryMetricsFactoryTests {
    let registry = MetricRegistry()
    let problems = ProblemLog()
    let factory: RegistryMetricsFactory

    init() {
        var configuration = RegistryMetricsFactory.Configuration()
        configuration.timerBuckets = [0.01, 0.1, 1]
        let problems = problems
        configuration.onProblem = { problems.append($0) }
        factory = RegistryMetricsFactory(registry: registry, configuration: configuration)
    }

    private var text: String { String(decoding: registry.render(format: .text), as: UTF8.self) }

    @Test func countersGetTotalAndDimensionsBecomeSortedLabels() {
        let counter = Counter(label: "http.requests", dimensions: [("status", "200"), ("method", "GET")],
                              factory: factory)
        counter.increment()
        counter.increment(by: 2)
        let floating = FloatingPointCounter(label: "bytes_total", dimensions: [], factory: factory)
        floating.increment(by: 1.5)
        #expect(text.contains("# TYPE http_requests_total counter"))
        #expect(text.contains("http_requests_total{method=\"GET\",status=\"200\"} 3"))
        #expect(text.contains("bytes_total 1.5"))
    }

    @Test func counterResetStartsTheSeriesAgain() {
        let counter = Counter(label: "jobs", factory: factory)
        counter.increment(by: 5)
        counter.reset()
        counter.increment()
        #expect(text.contains("jobs_total 1\n"))
    }

    @Test func gaugesMetersAndRecorders() {
        Gauge(label: "queue.depth", dimensions: [("queue", "a")], factory: factory).record(7)
        let meter = Meter(label: "inflight", factory: factory)
        meter.set(3)
        meter.increment(by: 2)
        meter.decrement()
        let recorder = Recorder(label: "payload.bytes", factory: factory)
        recorder.record(100)
        recorder.record(300)
        #expect(text.contains("# TYPE queue_depth gauge"))
        #expect(text.contains("queue_depth{queue=\"a\"} 7"))
        #expect(text.contains("inflight 4"))
        #expect(text.contains("# TYPE payload_bytes summary"))
        #expect(text.contains("payload_bytes_sum 400"))
        #expect(text.contains("payload_bytes_count 2"))
    }

    @Test func timersAreHistogramsInSeconds() {
        let timer = Timer(label: "db.query", dimensions: [("table", "users")], factory: factory)
        timer.recordMilliseconds(50)
        timer.recordNanoseconds(2_000_000_000)
        let already = Timer(label: "latency_seconds", factory: factory)
        already.recordSeconds(1)
        #expect(text.contains("# TYPE db_query_seconds histogram"))
        #expect(text.contains("db_query_seconds_bucket{table=\"users\",le=\"0.1\"} 1"))
        #expect(text.contains("db_query_seconds_bucket{table=\"users\",le=\"+Inf\"} 2"))
        #expect(text.contains("db_query_seconds_sum{table=\"users\"} 2.05"))
        #expect(text.contains("latency_seconds_count 1"))
        #expect(!text.contains("latency_seconds_seconds"))
    }

    @Test func timersCarryTheUnitSeconds() {
        Timer(label: "db.query", factory: factory).recordMilliseconds(3)
        let openMetrics = String(decoding: registry.render(format: .openMetrics), as: UTF8.self)
        #expect(openMetrics.contains("# TYPE db_query_seconds histogram\n# UNIT db_query_seconds seconds\n"))
        #expect(openMetrics.contains("db_query_seconds_sum 0.003\n"))
    }

    /// As seconds in a Double, 2 ms + 17 ms is 0.019000000000000003 and 100 ms + 200 ms is
    /// 0.30000000000000004; summed in nanoseconds both render as written.
    @Test func timerSumsAreExactNanoseconds() {
        let short = Timer(label: "short", factory: factory)
        short.recordMilliseconds(2)
        short.recordMilliseconds(17)
        let long = Timer(label: "long", factory: factory)
        long.recordMilliseconds(100)
        long.recordMilliseconds(200)
        let many = Timer(label: "many", factory: factory)
        for _ in 0..<1000 { many.recordNanoseconds(100_000) }   // 1000 × 0.1 ms
        #expect(0.002 + 0.017 != 0.019, "the Double sum this test guards against")
        #expect(text.contains("short_seconds_sum 0.019\n"))
        #expect(text.contains("long_seconds_sum 0.3\n"))
        #expect(text.contains("many_seconds_sum 0.1\n"))
        #expect(text.contains("many_seconds_count 1000\n"))
    }

    @Test func timerBucketsCompareWholeNanoseconds() {
        let timer = Timer(label: "edge", factory: factory)
        timer.recordNanoseconds(10_000_000)      // exactly the 0.01 bound: in it
        timer.recordNanoseconds(10_000_001)      // 1 ns above: the next bucket
        timer.recordNanoseconds(-5)              // a clock stepped back: 0
        #expect(text.contains("edge_seconds_bucket{le=\"0.01\"} 2\n"))
        #expect(text.contains("edge_seconds_bucket{le=\"0.1\"} 3\n"))
        #expect(text.contains("edge_seconds_sum 0.020000001\n"))
        #expect(text.contains("edge_seconds_count 3\n"))
    }

    @Test func timerSumsSaturateInsteadOfWrapping() {
        let timer = Timer(label: "huge", factory: factory)
        timer.recordNanoseconds(.max)
        timer.recordNanoseconds(.max)
        timer.recordNanoseconds(.max)
        #expect(text.contains("huge_seconds_count 3\n"))
        let sum = text.split(separator: "\n").first { $0.hasPrefix("huge_seconds_sum ") }
            .flatMap { Double($0.dropFirst("huge_seconds_sum ".count)) }
        #expect(sum == Double(UInt64.max) / 1e9, "saturated at UInt64.max ns, not wrapped to a small sum")
    }

    @Test func invalidNamesAreSanitized() {
        Counter(label: "9lives-café.hits", dimensions: [("__x", "1"), ("a.b", "2")], factory: factory).increment()
        #expect(text.contains("_9lives_caf__hits_total{_x=\"1\",a_b=\"2\"} 1"))
        #expect(PrometheusNames.metricName("") == "_")
        #expect(PrometheusNames.metricName("ns:sub.name") == "ns:sub_name")
        #expect(PrometheusNames.labelName("ns:key") == "ns_key")
    }

    @Test func sameNameAnotherKindOrLabelSetIsDroppedAndReportedOnce() {
        Counter(label: "conn", dimensions: [("pool", "a")], factory: factory).increment()
        Counter(label: "conn", dimensions: [("pool", "b")], factory: factory).increment()
        Counter(label: "conn", dimensions: [("host", "x")], factory: factory).increment()
        Counter(label: "conn", dimensions: [("host", "y")], factory: factory).increment()
        Meter(label: "conn_total", factory: factory).set(9)
        #expect(text.contains("conn_total{pool=\"a\"} 1"))
        #expect(text.contains("conn_total{pool=\"b\"} 1"))
        #expect(!text.contains("host="))
        #expect(!text.contains(" 9"))
        #expect(problems.problems.count == 1)
        #expect(problems.problems.first?.name == "conn_total")
        #expect(problems.problems.first?.label == "conn")
    }

    @Test func aNameRegisteredOutsideTheFactoryOrAReservedLabelIsDropped() throws {
        _ = try registry.gauge(name: "owned", help: "Registered directly.")
        Meter(label: "owned", factory: factory).set(5)
        Timer(label: "t", dimensions: [("le", "1")], factory: factory).recordSeconds(1)
        #expect(text.contains("owned 0"))
        #expect(!text.contains("# TYPE t_seconds"))
        #expect(Set(problems.problems.map(\.name)) == ["owned", "t_seconds"])
    }

    /// Without `onProblem`, a dropped metric is still never silent: the factory's counter on the
    /// same page counts it, once per name.
    @Test func aDroppedMetricIsCountedWhateverTheConfiguration() {
        let registry = MetricRegistry()
        let factory = RegistryMetricsFactory(registry: registry)
        let page = { String(decoding: registry.render(format: .text), as: UTF8.self) }
        #expect(page().contains("# TYPE swift_metrics_dropped_total counter"))
        Counter(label: "conn", dimensions: [("pool", "a")], factory: factory).increment()
        Counter(label: "conn", dimensions: [("host", "x")], factory: factory).increment()
        Counter(label: "conn", dimensions: [("host", "y")], factory: factory).increment()
        Meter(label: "conn_total", factory: factory).set(9)
        #expect(page().contains("swift_metrics_dropped_total{name=\"conn_total\"} 1\n"), "\(page())")
    }

    @Test func destroyRemovesTheSeriesAndUnregistersAnEmptyFamily() {
        let a = Counter(label: "sessions", dimensions: [("user", "a")], factory: factory)
        let b = Counter(label: "sessions", dimensions: [("user", "b")], factory: factory)
        a.increment()
        b.increment()
        a.destroy()
        #expect(!text.contains("user=\"a\""))
        #expect(text.contains("sessions_total{user=\"b\"} 1"))
        b.destroy()
        #expect(!text.contains("sessions_total"))
        // The name is free again, for any kind.
        Meter(label: "sessions_total", factory: factory).set(2)
        #expect(text.contains("# TYPE sessions_total gauge"))
        #expect(problems.problems.isEmpty)
        let timer = Timer(label: "gone", factory: factory)
        timer.recordSeconds(1)
        timer.destroy()
        let recorder = Recorder(label: "gone_too", factory: factory)
        recorder.record(1)
        recorder.destroy()
        let floating = FloatingPointCounter(label: "gone_three", factory: factory)
        floating.increment(by: 1)
        floating.destroy()
        #expect(!text.contains("gone"))
    }

    @Test func negativeCounterIncrementsAreIgnored() {
        let counter = Counter(label: "up", factory: factory)
        counter.increment(by: 2)
        counter.increment(by: -5)
        #expect(text.contains("up_total 2"))
    }

    @Test func concurrentCreationUpdatesAndDestroysNeverCrashAndAddUp() async {
        let factory = factory
        await withTaskGroup(of: Void.self) { group in
            for task in 0..<8 {
                group.addTask {
                    for round in 0..<50 {
                        Counter(label: "shared", dimensions: [("task", "\(task % 2)")], factory: factory).increment()
                        let scratch = Meter(label: "scratch", dimensions: [("round", "\(round)")], factory: factory)
                        scratch.set(Double(round))
                        scratch.destroy()
                    }
                }
            }
        }
        #expect(text.contains("shared_total{task=\"0\"} 200"))
        #expect(text.contains("shared_total{task=\"1\"} 200"))
        #expect(problems.problems.isEmpty)
    }

    @Test func destroyingAStaleHandlerLeavesTheNewFamilyOfItsNameAlone() {
        let first = Meter(label: "slot", factory: factory)
        let stale = Meter(label: "slot", factory: factory)  // the same series
        first.destroy()  // the family is gone
        let fresh = Meter(label: "slot", factory: factory)  // a new family of that name
        fresh.set(4)
        stale.destroy()
        #expect(text.contains("slot 4"))
        Meter(label: "slot", factory: factory).set(5)
        #expect(text.contains("slot 5"))
        #expect(problems.problems.isEmpty)
    }
}
