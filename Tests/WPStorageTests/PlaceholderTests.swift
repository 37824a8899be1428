import Testing
@testable import WPStorage

@Test func moduleBuilds() {
    #expect(Bool(true))
}
