import Foundation
import Testing
import WPTestThreads
import WPMetrics
import WPRuntime
import WPTestSupport

@Suite(.ownThreads, .timeLimit(.minutes(3))) struct ExpositionTests {
    private func render(_ families: [MetricFamily], _ format: ExpositionFormat) -> String {
        String(decoding: ExpositionEncoder(format: format).encode(families), as: UTF8.self)
    }

    @Test func escapesLabelValuesAndHelp() throws {
        var family = try MetricFamily(name: "m", help: "a\\b\nc \"q\"", type: .gauge, labelNames: ["l"])
        try family.append(labelValues: ["x\\y\"z\nw ü"], value: 1)
        #expect(render([family], .text) == """
            # HELP m a\\\\b\\nc "q"
            # TYPE m gauge
            m{l="x\\\\y\\"z\\nw ü"} 1

            """)
        #expect(render([family], .openMetrics) == """
            # HELP m a\\\\b\\nc \\"q\\"
            # TYPE m gauge
            m{l="x\\\\y\\"z\\nw ü"} 1
            # EOF

            """)
    }

    @Test func controlCharactersInLabelValuesBecomeReplacementCharacters() throws {
        var family = try MetricFamily(name: "m", help: "H.", type: .gauge, labelNames: ["l"])
        try family.append(labelValues: ["a\u{0}b\u{1B}[31mc\u{7F}d\u{9B}2Je\tf\ng °ü"], value: 1)
        for format in [ExpositionFormat.text, .openMetrics] {
            let text = render([family], format)
            #expect(text.contains("m{l=\"a\u{FFFD}b\u{FFFD}[31mc\u{FFFD}d\u{FFFD}2Je\tf\\ng °ü\"} 1\n"), "\(text)")
            let bytes = Array(text.utf8)
            #expect(!bytes.contains(0) && !bytes.contains(0x1B) && !bytes.contains(0x7F))
        }
    }

    /// An alias with U+202E (right-to-left override) would show reversed in Grafana and a
    /// terminal: the bidirectional formatting characters become U+FFFD, as on `/health`; other
    /// characters of the same lead bytes (an en dash, Arabic letters) stay.
    @Test func bidirectionalFormattingInLabelValuesIsMadeVisible() throws {
        var family = try MetricFamily(name: "m", help: "H.", type: .gauge, labelNames: ["l"])
        try family.append(labelValues: ["a\u{202E}cba\u{202C} \u{2066}x\u{2069}\u{200F}\u{061C} – \u{0628}"], value: 1)
        for format in [ExpositionFormat.text, .openMetrics] {
            let text = render([family], format)
            #expect(text.contains("m{l=\"a\u{FFFD}cba\u{FFFD} \u{FFFD}x\u{FFFD}\u{FFFD}\u{FFFD} – \u{0628}\"} 1\n"), "\(text)")
        }
    }

    @Test func countersCarryTotalOnlyOnSamplesInOpenMetrics() throws {
        var family = try MetricFamily(name: "energy_joules_total", help: "E.", type: .counter, unit: "joules")
        try family.append(Sample(labelValues: [], value: .counter(5), created: 1.5))
        #expect(render([family], .text) == """
            # HELP energy_joules_total E.
            # TYPE energy_joules_total counter
            energy_joules_total 5

            """)
        #expect(render([family], .openMetrics) == """
            # HELP energy_joules E.
            # TYPE energy_joules counter
            # UNIT energy_joules joules
            energy_joules_total 5
            energy_joules_created 1.5
            # EOF

            """)
    }

    @Test func histogramsWithNegativeBucketsOmitSumInOpenMetrics() throws {
        var family = try MetricFamily(name: "t", help: "", type: .histogram)
        try family.append(Sample(labelValues: [], value: .histogram(
            HistogramValue(upperBounds: [-1, .infinity], cumulativeCounts: [1, 2], count: 2, sum: 3))))
        let openMetrics = render([family], .openMetrics)
        #expect(!openMetrics.contains("t_sum"))
        #expect(openMetrics.contains("t_bucket{le=\"-1\"} 1\nt_bucket{le=\"+Inf\"} 2\n"))
        #expect(render([family], .text).contains("t_sum 3\nt_count 2\n"))
    }

    /// Bucket lines reuse one sample's escaped labels and the formatted bounds: a second sample
    /// with other values and other bounds must not see the first one's.
    @Test func histogramBucketLinesOfSeveralLabelledSamples() throws {
        var family = try MetricFamily(name: "h", help: "", type: .histogram, labelNames: ["a", "b"])
        try family.append(Sample(labelValues: ["x\"y", "1"], value: .histogram(
            HistogramValue(upperBounds: [0.5, .infinity], cumulativeCounts: [1, 2], count: 2, sum: 1))))
        try family.append(Sample(labelValues: ["z", "2\n"], value: .histogram(
            HistogramValue(upperBounds: [10, 30, .infinity], cumulativeCounts: [0, 1, 3], count: 3, sum: 70))))
        #expect(render([family], .text) == """
            # TYPE h histogram
            h_bucket{a="x\\"y",b="1",le="0.5"} 1
            h_bucket{a="x\\"y",b="1",le="+Inf"} 2
            h_sum{a="x\\"y",b="1"} 1
            h_count{a="x\\"y",b="1"} 2
            h_bucket{a="z",b="2\\n",le="10"} 0
            h_bucket{a="z",b="2\\n",le="30"} 1
            h_bucket{a="z",b="2\\n",le="+Inf"} 3
            h_sum{a="z",b="2\\n"} 70
            h_count{a="z",b="2\\n"} 3

            """)
    }

    @Test func snapshotAndPerScrapePartsShareOneEOF() throws {
        var snapshot = try MetricFamily(name: "a", help: "", type: .gauge)
        try snapshot.append(labelValues: [], value: 1)
        var perScrape = try MetricFamily(name: "b", help: "", type: .gauge)
        try perScrape.append(labelValues: [], value: 2)
        let encoder = ExpositionEncoder(format: .openMetrics)
        var bytes: [UInt8] = []
        encoder.encode([snapshot], into: &bytes, terminated: false)
        encoder.encode([perScrape], into: &bytes)
        #expect(String(decoding: bytes, as: UTF8.self) == "# TYPE a gauge\na 1\n# TYPE b gauge\nb 2\n# EOF\n")
    }

    @Test func emptyHelpWritesNoHelpLine() throws {
        var family = try MetricFamily(name: "quiet", help: "", type: .gauge)
        try family.append(labelValues: [], value: 1)
        #expect(render([family], .text) == "# TYPE quiet gauge\nquiet 1\n")
    }

    @Test func rendersIntoAReusedBuffer() throws {
        var family = try MetricFamily(name: "g", help: "h", type: .gauge, labelNames: ["a"])
        for index in 0..<100 { try family.append(labelValues: ["\(index)"], value: Double(index)) }
        let encoder = ExpositionEncoder(format: .text)
        var buffer: [UInt8] = []
        encoder.encode([family], into: &buffer)
        let first = buffer
        buffer.removeAll(keepingCapacity: true)
        encoder.encode([family], into: &buffer)
        #expect(buffer == first)
    }

    @Test(arguments: ExpositionFormat.allCases)
    func goldenExposition(format: ExpositionFormat) throws {
        let registry = try MetricsFixtures.everyTypeRegistry(clock: ManualClock())
        let rendered = String(decoding: registry.render(format: format), as: UTF8.self)
        let golden = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("Golden/every-type.\(format == .text ? "txt" : "om.txt")")
        if ProcessInfo.processInfo.environment["UPDATE_GOLDEN"] != nil {
            try Data(rendered.utf8).write(to: golden)
        }
        let expected = try String(contentsOf: golden, encoding: .utf8)
        #expect(rendered == expected, "set UPDATE_GOLDEN=1 to rewrite \(golden.lastPathComponent)")
    }

    @Test func comparesOnlyNamedFamilies() throws {
        let registry = MetricRegistry()
        let gauge = try registry.gauge(name: "wanted", help: "h")
        _ = try registry.gauge(name: "noise", help: "h")
        gauge.set(3)
        #expect(MetricsAssertions.render(registry, only: ["wanted"]) == """
            # HELP wanted h
            # TYPE wanted gauge
            wanted 3

            """)
    }
}
