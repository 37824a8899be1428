import Testing
import WPTestThreads
import WPMetrics

@Suite(.ownThreads, .timeLimit(.minutes(3))) struct ExpositionFormatTests {
    @Test(arguments: [
        // Prometheus 2.x default scrape_protocols.
        ("application/openmetrics-text;version=1.0.0,application/openmetrics-text;version=0.0.1;q=0.75,text/plain;version=0.0.4;q=0.5,*/*;q=0.1", ExpositionFormat.openMetrics),
        // Prometheus 3.x default.
        ("application/openmetrics-text;version=1.0.0;escaping=allow-utf-8,application/openmetrics-text;version=0.0.1;q=0.6,text/plain;version=1.0.0;escaping=allow-utf-8;q=0.5,text/plain;version=0.0.4;q=0.4,*/*;q=0.1", .openMetrics),
        // Prometheus 3.x preferring protobuf, which we do not serve.
        ("application/vnd.google.protobuf;proto=io.prometheus.client.MetricFamily;encoding=delimited;q=0.5,application/openmetrics-text;version=1.0.0;q=0.4,text/plain;version=0.0.4;q=0.3", .openMetrics),
        // Prometheus 2.x with OpenMetrics disabled / older servers.
        ("text/plain;version=0.0.4;q=1,*/*;q=0.1", .text),
        ("application/openmetrics-text; version=0.0.1,text/plain;version=0.0.4;q=0.5,*/*;q=0.1", .openMetrics),
        ("text/plain;version=0.0.4;q=0.9, application/openmetrics-text;version=1.0.0;q=0.3", .text),
        ("application/openmetrics-text;version=2.0.0", .text),
        ("application/openmetrics-text;version=1.0.0;q=0", .text),
        ("application/json", .text),
        ("*/*", .text),
        ("", .text),
        ("garbage;;;q=abc,,", .text),
        ("APPLICATION/OPENMETRICS-TEXT; Version=1.0.0", .openMetrics),
    ])
    func negotiates(accept: String, expected: ExpositionFormat) {
        #expect(ExpositionFormat.negotiate(accept: accept) == expected)
    }

    @Test func missingHeaderMeansText() {
        #expect(ExpositionFormat.negotiate(accept: nil) == .text)
        #expect(ExpositionFormat.text.contentType == "text/plain; version=0.0.4; charset=utf-8")
        #expect(ExpositionFormat.openMetrics.contentType == "application/openmetrics-text; version=1.0.0; charset=utf-8")
    }
}
