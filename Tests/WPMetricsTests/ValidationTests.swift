import Testing
import WPTestThreads
import WPMetrics

@Suite(.ownThreads, .timeLimit(.minutes(3))) struct ValidationTests {
    @Test(arguments: ["a", "_a", ":a", "a:b_c9", "http_requests_total", "A"])
    func acceptsValidMetricNames(name: String) {
        #expect(NameValidation.isValidMetricName(name))
    }

    @Test(arguments: ["", "9a", "a-b", "a b", "a.b", "ä", "a\n"])
    func rejectsInvalidMetricNames(name: String) throws {
        #expect(!NameValidation.isValidMetricName(name))
        #expect(throws: MetricsError.invalidMetricName(name)) { try WPGauge(name: name, help: "h") }
    }

    @Test(arguments: ["a", "_a", "device_id", "A9"])
    func acceptsValidLabelNames(name: String) {
        #expect(NameValidation.isValidLabelName(name))
    }

    @Test(arguments: ["", "__reserved", "a:b", "9a", "a-b", "é"])
    func rejectsInvalidLabelNames(name: String) {
        #expect(!NameValidation.isValidLabelName(name))
        #expect(throws: MetricsError.invalidLabelName(name, metric: "m")) {
            try GaugeVec(name: "m", help: "h", labelNames: [name])
        }
    }

    @Test func rejectsDuplicateAndReservedLabels() {
        #expect(throws: MetricsError.duplicateLabelName("a", metric: "m")) {
            try GaugeVec(name: "m", help: "h", labelNames: ["a", "a"])
        }
        #expect(throws: MetricsError.invalidLabelName("le", metric: "h")) {
            try HistogramVec(name: "h", help: "h", labelNames: ["le"])
        }
        #expect(throws: MetricsError.invalidLabelName("quantile", metric: "s")) {
            try SummaryVec(name: "s", help: "h", labelNames: ["quantile"], clock: ContinuousClock())
        }
    }

    @Test func unitMustBeANameSuffix() throws {
        _ = try WPGauge(name: "disk_bytes", help: "h", unit: "bytes")
        _ = try WPCounter(name: "energy_joules_total", help: "h", unit: "joules")
        #expect(throws: MetricsError.invalidUnit(unit: "seconds", metric: "disk_bytes")) {
            try WPGauge(name: "disk_bytes", help: "h", unit: "seconds")
        }
    }

    @Test func familyRejectsMismatchedSamples() throws {
        var family = try MetricFamily(name: "g", help: "h", type: .gauge, labelNames: ["a", "b"])
        #expect(throws: MetricsError.labelCountMismatch(metric: "g", expected: 2, got: 1)) {
            try family.append(labelValues: ["x"], value: 1)
        }
        #expect(throws: MetricsError.valueKindMismatch(metric: "g", expected: .gauge)) {
            try family.append(Sample(labelValues: ["x", "y"], value: .counter(1)))
        }
        var counter = try MetricFamily(name: "c_total", help: "h", type: .counter)
        #expect(throws: MetricsError.negativeCounterIncrement(metric: "c_total", amount: -1)) {
            try counter.append(labelValues: [], value: -1)
        }
        var info = try MetricFamily(name: "i", help: "h", type: .info)
        #expect(throws: MetricsError.valueKindMismatch(metric: "i", expected: .info)) {
            try info.append(labelValues: [], value: 2)
        }
        var histogram = try MetricFamily(name: "h", help: "h", type: .histogram)
        #expect(throws: MetricsError.self) {
            try histogram.append(Sample(labelValues: [], value: .histogram(
                HistogramValue(upperBounds: [1, 2], cumulativeCounts: [1, 2], count: 2, sum: 1))))
        }
        #expect(throws: MetricsError.self) {
            try histogram.append(Sample(labelValues: [], value: .histogram(
                HistogramValue(upperBounds: [1, .infinity], cumulativeCounts: [3, 2], count: 2, sum: 1))))
        }
        #expect(throws: MetricsError.invalidLabelName("s", metric: "s")) {
            try MetricFamily(name: "s", help: "h", type: .stateSet, labelNames: ["other"])
        }
    }

    @Test func errorsNameWhatWasWrong() {
        let error = MetricsError.labelCountMismatch(metric: "ups_load", expected: 3, got: 2)
        #expect(error.description.contains("ups_load"))
        #expect(error.description.contains("3"))
        #expect(MetricsError.invalidMetricName("9x").description.contains("\"9x\""))
    }
}
