/// One benchmark scenario: a name, what it measures, and a body that prints its figures.
struct Scenario: Sendable {
    let name: String
    let summary: String
    let run: @Sendable () async throws -> Void
}
