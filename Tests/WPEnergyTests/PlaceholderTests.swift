import Testing
@testable import WPEnergy

@Test func moduleBuilds() {
    #expect(Bool(true))
}
