import Testing

@Test func executableBuilds() {
    #expect(Bool(true))
}
