import Foundation
import Testing
import WPTestThreads
import WPCollector
import WPServer
@testable import WPExporter

/// `/health` shows how many power readings were refused as implausible.
@Suite(.ownThreads, .timeLimit(.minutes(3))) struct HealthRejectionsTests {
    @Test func healthReportsRejectedEnergySamples() throws {
        var health = CollectorHealth()
        health.energySamplesRejected = 3
        let response = try EndpointTests.endpoints(health: health).healthResponse()
        let report = try JSONDecoder().decode(HealthReport.self, from: Data(response.body))
        #expect(report.energySamplesRejected == 3)
        #expect(String(decoding: response.body, as: UTF8.self).contains(#""energy_samples_rejected":3"#))
    }
}
