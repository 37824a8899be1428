import Testing
@testable import WPMetrics

@Test func moduleBuilds() {
    #expect(Bool(true))
}
