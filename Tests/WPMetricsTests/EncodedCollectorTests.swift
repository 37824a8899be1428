import Testing
import WPTestThreads
import WPMetrics

/// A fixed encoded block: what another component's pre-rendered exposition looks like.
private final class Encoded: EncodedCollector {
    let namePrefix: String
    private let text: String
    private let openMetrics: String

    init(prefix: String, text: String, openMetrics: String? = nil) {
        namePrefix = prefix
        self.text = text
        self.openMetrics = openMetrics ?? text
    }

    func encode(format: ExpositionFormat, into bytes: inout [UInt8]) {
        bytes += Array((format == .text ? text : openMetrics).utf8)
    }
}

@Suite(.ownThreads, .timeLimit(.minutes(3))) struct EncodedCollectorTests {
    private static let ups = """
        # HELP ups_load_percent Load.
        # TYPE ups_load_percent gauge
        ups_load_percent{device="1"} 42

        """

    /// The encoded block sits where its prefix sorts among the registry's own families, and
    /// OpenMetrics gets one `# EOF`, at the very end.
    @Test func theBlockSortsAtItsPrefixAndOpenMetricsEndsOnce() throws {
        let registry = MetricRegistry()
        try registry.counter(name: "app_requests_total", help: "Requests.").increment()
        try registry.gauge(name: "zeta_queue", help: "Queue.").set(3)
        try registry.register(encoded: Encoded(prefix: "ups_", text: Self.ups))
        let text = String(decoding: registry.render(format: .text), as: UTF8.self)
        let app = try #require(text.firstRange(of: "app_requests_total 1"))
        let ups = try #require(text.firstRange(of: "ups_load_percent{device=\"1\"} 42"))
        let zeta = try #require(text.firstRange(of: "zeta_queue 3"))
        #expect(app.lowerBound < ups.lowerBound && ups.lowerBound < zeta.lowerBound)
        let openMetrics = String(decoding: registry.render(format: .openMetrics), as: UTF8.self)
        #expect(openMetrics.hasSuffix("zeta_queue 3\n# EOF\n"))
        #expect(openMetrics.ranges(of: "# EOF").count == 1, "exactly one # EOF")
        #expect(registry.collect().map(\.name) == ["app_requests_total", "zeta_queue"], "collect() has no encoded families")
    }

    /// No name can appear twice: an instrument in the owned namespace is refused, and so is an
    /// encoded collector whose prefix covers a registered name or another prefix.
    @Test func namesInTheOwnedPrefixAreRefusedBothWays() throws {
        let registry = MetricRegistry()
        try registry.register(encoded: Encoded(prefix: "ups_", text: Self.ups))
        #expect(throws: MetricsError.self) { try registry.gauge(name: "ups_load_percent", help: "Load.") }
        #expect(throws: MetricsError.self) { try registry.counter(name: "ups_events_total", help: "Events.") }
        #expect(throws: MetricsError.self) { try registry.register(encoded: Encoded(prefix: "ups_load_", text: "")) }
        #expect(throws: MetricsError.self) { try registry.register(encoded: Encoded(prefix: "u", text: "")) }
        #expect(throws: MetricsError.self) { try registry.register(encoded: Encoded(prefix: "", text: "")) }
        _ = try registry.gauge(name: "upstream_up", help: "Up.")   // no `ups_` prefix: fine

        let other = MetricRegistry()
        _ = try other.counter(name: "ups_events_total", help: "Events.")
        #expect(throws: MetricsError.self) { try other.register(encoded: Encoded(prefix: "ups_", text: Self.ups)) }
        #expect(String(decoding: other.render(format: .text), as: UTF8.self).contains("ups_load_percent") == false,
                "a refused collector is not rendered")
    }

    @Test func unregisteringFreesThePrefix() throws {
        let registry = MetricRegistry()
        let encoded = Encoded(prefix: "ups_", text: Self.ups)
        try registry.register(encoded: encoded)
        #expect(registry.unregister(encoded: encoded))
        #expect(!registry.unregister(encoded: encoded))
        #expect(!String(decoding: registry.render(format: .text), as: UTF8.self).contains("ups_load_percent"))
        _ = try registry.gauge(name: "ups_load_percent", help: "Load.")
    }
}
