#if os(Linux)
import Testing
import WPTestThreads
import WPLogging
@testable import EmbeddedWinPower

/// The embedding example does what docs/embedding.md says: both servers and the service's own
/// counter on one `/metrics`, in both formats' rules (each family once), and the reload's new
/// label on the next collection.
@Suite(.ownThreads, .timeLimit(.minutes(4))) struct EmbeddedWinPowerTests {
    @Test func twoServersAndOwnCountersOnOneMetricsThenAReload() async throws {
        let bodies = try await EmbeddedWinPower.run(log: .disabled)
        try #require(bodies.count == 2)
        let (before, after) = (bodies[0], bodies[1])
        for body in bodies {
            #expect(body.contains("service_jobs_total 2"))
            #expect(body.contains("winpower_exporter_up{server=\"a\"} 1"))
            let types = body.split(separator: "\n").filter { $0.hasPrefix("# TYPE ") }
            #expect(Set(types).count == types.count, "every family once")
        }
        // A request is counted once answered: the first scrape may be the first request.
        #expect(after.contains("service_http_requests_total{handler=\"/metrics\",code=\"200\"}"))
        #expect(!before.contains("room=\"basement\""))
        #expect(after.contains("winpower_exporter_up{server=\"b\",room=\"basement\"} 1"))
    }
}
#endif
