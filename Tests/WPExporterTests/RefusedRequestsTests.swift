import Testing
import WPTestThreads
import WPTestSupport

/// Requests the HTTP server refuses before any handler runs are counted on the exporter's own
/// `/metrics`, under `handler="refused"` and the status they got.
@Suite("Refused requests on /metrics", .ownThreads, .timeLimit(.minutes(4)))
struct RefusedRequestsTests {
    @Test func aBodyOnABodilessRouteAndAMalformedHeadAreCountedUnderRefused() async throws {
        let harness = try await ExporterHarness(devices: 1)
        let before = try await harness.scrape()
        #expect(before["winpower_exporter_requests_total{handler=\"refused\",code=\"413\"}"] == nil)

        // The exporter's routes take no body: 413 from Content-Length alone.
        let withBody = try await TestHTTPClient.connect(port: harness.port)
        try await withBody.send("GET /metrics HTTP/1.1\r\nHost: localhost\r\nContent-Length: 5\r\n\r\n")
        let tooLarge = try await withBody.readResponse()
        withBody.close()
        #expect(tooLarge.status == 413)

        let malformed = try await TestHTTPClient.connect(port: harness.port)
        try await malformed.send("NOT A REQUEST\r\n\r\n")
        let badRequest = try await malformed.readResponse()
        malformed.close()
        #expect(badRequest.status == 400)

        let after = try await harness.scrape()
        #expect(after["winpower_exporter_requests_total{handler=\"refused\",code=\"413\"}"] == 1)
        #expect(after["winpower_exporter_requests_total{handler=\"refused\",code=\"400\"}"] == 1)
        // Neither reached the metrics handler.
        let metricsServed = after["winpower_exporter_requests_total{handler=\"/metrics\",code=\"200\"}"]
        #expect(metricsServed == (before["winpower_exporter_requests_total{handler=\"/metrics\",code=\"200\"}"] ?? 0) + 1)
        await harness.shutdown()
    }
}
