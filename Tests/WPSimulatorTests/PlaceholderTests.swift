import Testing
@testable import WPSimulator

@Test func moduleBuilds() {
    #expect(Bool(true))
}
