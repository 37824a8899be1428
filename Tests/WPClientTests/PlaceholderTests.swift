import Testing
@testable import WPClient

@Test func moduleBuilds() {
    #expect(Bool(true))
}
