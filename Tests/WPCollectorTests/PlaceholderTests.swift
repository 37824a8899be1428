import Testing
@testable import WPCollector

@Test func moduleBuilds() {
    #expect(Bool(true))
}
