import Foundation
import Testing
import WPTestThreads
@testable import WPExporter

/// `/health` times equal what `ISO8601DateFormatter` wrote before the executable dropped
/// Foundation: UTC, milliseconds, `Z`.
@Suite(.ownThreads, .timeLimit(.minutes(3))) struct HealthTimeTests {
    @Test func isoMatchesISO8601DateFormatter() {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        let seconds: [Double] = [0, 1, 0.001, 0.0005, 0.9999, 59.999, 1_763_778_439.123, 1_763_778_439.1239,
                                 1_763_778_439.9996, 951_782_400.5, 4_102_444_799.999, 1_000_000_000.25]
        for value in seconds {
            let date = Date(timeIntervalSince1970: value)
            #expect(Endpoints.iso(date) == formatter.string(from: date), "\(value)")
        }
        #expect(Endpoints.iso(Date(timeIntervalSince1970: 1_763_778_439.123)) == "2025-11-22T02:27:19.123Z")
    }
}
