import Testing
@testable import WPConfig

@Test func moduleBuilds() {
    #expect(Bool(true))
}
