import Testing
import WPTestThreads
import WPMetrics
@testable import WPCollector
import WPCompression

/// The single-pass encoder must equal WPMetrics' two encoders, shared lines or not.
@Suite(.ownThreads, .timeLimit(.minutes(3))) struct SnapshotEncoderTests {
    @Test func equalsTheTwoEncodersForEveryFamilyShape() throws {
        var gauge = try MetricFamily(name: "a_gauge", help: "A \"gauge\".", type: .gauge, labelNames: ["id"])
        try gauge.append(labelValues: ["x\\y\n"], value: .nan)
        var counter = try MetricFamily(name: "b_bytes_total", help: "Bytes.", type: .counter, unit: "bytes",
                                       labelNames: ["id"])
        try counter.append(labelValues: ["1"], value: 3)
        var created = try MetricFamily(name: "c_total", help: "Created.", type: .counter)
        try created.append(Sample(labelValues: [], value: .counter(2), created: 1_700_000_000))
        var negative = try MetricFamily(name: "d_celsius", help: "Negative buckets.", type: .histogram, unit: "celsius")
        try negative.append(Sample(labelValues: [], value: .histogram(HistogramValue(
            upperBounds: [-10, 0, .infinity], cumulativeCounts: [1, 1, 2], count: 2, sum: -5))))
        var summary = try MetricFamily(name: "e_seconds", help: "Summary.", type: .summary)
        try summary.append(Sample(labelValues: [], value: .summary(SummaryValue(quantiles: [0.5], values: [1], count: 1, sum: 1))))
        var info = try MetricFamily(name: "f", help: "Info.", type: .info, labelNames: ["version"])
        try info.append(labelValues: ["1.0"], value: 1)
        let families = [gauge, counter, created, negative, summary, info]
        let bodies = SnapshotEncoder.encode(families, textCapacity: 0)
        #expect(bodies.text == ExpositionEncoder(format: .text).encode(families))
        var openMetrics: [UInt8] = []
        ExpositionEncoder(format: .openMetrics).encode(families, into: &openMetrics, terminated: false)
        #expect(bodies.openMetrics == openMetrics)
        #expect(Gzip.decompress(bodies.textGzip) == bodies.text)
        #expect(Gzip.decompress(bodies.openMetricsGzip) == bodies.openMetrics)
        #expect(!SnapshotEncoder.isShareable(created))
        #expect(!SnapshotEncoder.isShareable(negative))
        #expect(SnapshotEncoder.isShareable(counter))
    }
}
