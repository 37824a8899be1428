import Testing
import WPTestThreads
import WPMetrics

/// Curried vectors (Go's `CurryWith`) and the checked, non-throwing label handles.
@Suite(.ownThreads, .timeLimit(.minutes(3))) struct CurriedVectorTests {
    private func text(_ registry: MetricRegistry) -> String {
        String(decoding: registry.render(format: .text), as: UTF8.self)
    }

    private func requests(_ registry: MetricRegistry) throws -> CounterVec {
        try registry.counterVec(name: "requests_total", help: "Requests.", labelNames: ["method", "path", "code"])
    }

    @Test func aCurriedVectorSharesTheChildrenOfItsParent() throws {
        let registry = MetricRegistry()
        let requests = try requests(registry)
        let get = try requests.curry(["method": "GET"])
        #expect(get.remainingLabelNames == ["path", "code"])
        #expect(get.curriedLabels == ["method": "GET"])
        #expect(get.descriptor == requests.descriptor)
        try get.labels("/metrics", "200").increment()
        try get.labels(["code": "200", "path": "/metrics"]).increment()
        #expect(try requests.labels("GET", "/metrics", "200").value == 2)

        let getOK = try get.curry(["code": "200"])   // curried again, a label after a gap
        #expect(getOK.remainingLabelNames == ["path"])
        try getOK.labels("/").increment()
        try requests.labels("POST", "/", "200").increment()
        #expect(text(registry).contains("""
            requests_total{method="GET",path="/",code="200"} 1
            requests_total{method="GET",path="/metrics",code="200"} 2
            requests_total{method="POST",path="/",code="200"} 1

            """))
    }

    @Test func aCurriedVectorSeesOnlyItsOwnChildren() throws {
        let registry = MetricRegistry()
        let requests = try requests(registry)
        let get = try requests.curry(["method": "GET"])
        try get.labels("/", "200").increment()
        try get.labels("/", "500").increment()
        try requests.labels("POST", "/", "200").increment()
        #expect(get.count == 2)
        #expect(requests.count == 3)
        #expect(get.collect().first?.samples.count == 2)
        #expect(get.remove("/", "500"))
        #expect(!get.remove("/", "500"))
        #expect(!get.remove("/"))                    // wrong count: nothing removed
        get.reset()
        #expect(get.count == 0)
        #expect(requests.count == 1)                 // POST kept
        #expect(throws: MetricsError.alreadyRegistered("requests_total")) { try registry.register(get) }
    }

    @Test func unknownAndAlreadyCurriedLabelsAreClearErrors() throws {
        let requests = try requests(MetricRegistry())
        #expect(throws: MetricsError.invalidLabelName("host", metric: "requests_total")) {
            try requests.curry(["host": "a"])
        }
        let get = try requests.curry(["method": "GET"])
        #expect(throws: MetricsError.duplicateLabelName("method", metric: "requests_total")) {
            try get.curry(["method": "POST"])
        }
        #expect(throws: MetricsError.duplicateLabelName("method", metric: "requests_total")) {
            try get.labels(["method": "GET", "path": "/"])
        }
        #expect(throws: MetricsError.labelCountMismatch(metric: "requests_total", expected: 2, got: 3)) {
            try get.labels("GET", "/", "200")
        }
        #expect(MetricsError.invalidLabelName("host", metric: "requests_total").description
                == "metric requests_total has no label named \"host\"")
        #expect(MetricsError.duplicateLabelName("method", metric: "requests_total").description
                == "label name \"method\" appears twice on metric requests_total (declared twice, or already curried)")
        #expect(MetricsError.invalidLabelName("__x", metric: "m").description.hasPrefix("invalid label name \"__x\" on metric m: must match"))
    }

    @Test func checkedLabelsNeverThrowAndAcceptTheNamesInAnyOrder() throws {
        let registry = MetricRegistry()
        let requests = try requests(registry)
        let inOrder = try requests.checkedLabels("method", "path", "code")
        let reordered = try requests.checkedLabels("code", "method", "path")
        inOrder.labels("GET", "/", "200").increment()
        reordered.labels("200", "GET", "/").increment()
        #expect(try requests.labels("GET", "/", "200").value == 2)

        let byCode = try requests.curry(["method": "GET", "path": "/"]).checkedLabels("code")
        byCode.labels("200").increment()
        #expect(try requests.labels("GET", "/", "200").value == 3)
        let two = try requests.curry(["path": "/"]).checkedLabels("code", "method")
        two.labels("404", "HEAD").increment()
        #expect(try requests.labels("HEAD", "/", "404").value == 1)
        #expect(text(registry).contains("requests_total{method=\"HEAD\",path=\"/\",code=\"404\"} 1\n"))
    }

    @Test func checkedHandlesAndPositionalLabelsReachTheSameChildren() throws {
        let registry = MetricRegistry()
        let one = try registry.gaugeVec(name: "one", help: "1.", labelNames: ["a"])
        try one.checkedLabels("a").labels("x").set(1)
        #expect(try one.labels("x").value == 1)
        let two = try registry.gaugeVec(name: "two", help: "2.", labelNames: ["a", "b"])
        try two.labels("x", "y").set(2)
        #expect(try two.checkedLabels("b", "a").labels("y", "x").value == 2)
        #expect(two.count == 1)
        let four = try registry.gaugeVec(name: "four", help: "4.", labelNames: ["a", "b", "c", "d"])
        try four.labels(["d": "4", "c": "3", "b": "2", "a": "1"]).set(4)
        #expect(try four.labels("1", "2", "3", "4").value == 4)
        #expect(try four.curry(["a": "1"]).checkedLabels("b", "c", "d").labels("2", "3", "4").value == 4)
        #expect(four.remove("1", "2", "3", "4"))
        #expect(four.count == 0)
    }

    @Test func checkedLabelsRejectWrongNamesOnce() throws {
        let requests = try requests(MetricRegistry())
        #expect(throws: MetricsError.labelCountMismatch(metric: "requests_total", expected: 3, got: 2)) {
            try requests.checkedLabels("method", "code")
        }
        #expect(throws: MetricsError.invalidLabelName("status", metric: "requests_total")) {
            try requests.checkedLabels("method", "path", "status")
        }
        #expect(throws: MetricsError.duplicateLabelName("code", metric: "requests_total")) {
            try requests.checkedLabels("code", "path", "code")
        }
        #expect(throws: MetricsError.duplicateLabelName("method", metric: "requests_total")) {
            try requests.curry(["method": "GET"]).checkedLabels("method", "code")
        }
    }
}
