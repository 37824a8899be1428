import Testing
import WPTestThreads
import WPServer

/// How the open-files limit is shared between what the process holds and client connections.
@Suite(.ownThreads, .timeLimit(.minutes(3))) struct DescriptorBudgetTests {
    @Test func whatIsLeftGoesToHTTPUpToItsCap() throws {
        let budget = try DescriptorBudget(limit: 64, reserved: 36, httpConnections: 10_000, lineConnections: nil)
        #expect(budget.httpConnections == 28)
        #expect(budget.lineConnections == 0)
        #expect(budget.reservedForHTTP == 36)
        let roomy = try DescriptorBudget(limit: 1 << 20, reserved: 36, httpConnections: 10_000, lineConnections: nil)
        #expect(roomy.httpConnections == 10_000)
        #expect(roomy.reservedForHTTP == (1 << 20) - 10_000)
    }

    /// The line server gets its cap when there is room, a quarter of what is left when there
    /// is not (never under the minimum), and HTTP the rest.
    @Test func theLineServerGetsAtMostAQuarterOfWhatIsLeft() throws {
        let roomy = try DescriptorBudget(limit: 65_536, reserved: 20, httpConnections: 10_000, lineConnections: 256)
        #expect(roomy.lineConnections == 256 && roomy.httpConnections == 10_000)
        let tight = try DescriptorBudget(limit: 64, reserved: 20, httpConnections: 10_000, lineConnections: 256)
        #expect(tight.lineConnections == 11 && tight.httpConnections == 33)
        let tighter = try DescriptorBudget(limit: 30, reserved: 20, httpConnections: 10_000, lineConnections: 256)
        #expect(tighter.lineConnections == DescriptorBudget.minimumConnections && tighter.httpConnections == 6)
    }

    /// Several listeners ask in turn: each gets at most a quarter of what the ones before left,
    /// one that asks for none gets none, and HTTP the rest; each asking listener needs the minimum.
    @Test func severalListenersAskInTurn() throws {
        let tight = try DescriptorBudget(limit: 84, reserved: 20, httpConnections: 10_000, requests: [256, nil, 100])
        #expect(tight.grants == [16, nil, 12])
        #expect(tight.httpConnections == 84 - 20 - 16 - 12)
        #expect(tight.lineConnections == 16, "the first grant")
        let roomy = try DescriptorBudget(limit: 65_536, reserved: 20, httpConnections: 10_000, requests: [256, 32])
        #expect(roomy.grants == [256, 32] && roomy.httpConnections == 10_000)
        #expect(throws: DescriptorBudgetError(limit: 29, reserved: 18, needed: 30)) {
            try DescriptorBudget(limit: 29, reserved: 18, httpConnections: 10_000, requests: [8, nil, 8])
        }
    }

    /// Too low to give each listener the minimum: an error with every number an operator needs.
    @Test func aLimitTooLowToServeIsAnErrorNamingTheNumbers() {
        #expect(throws: DescriptorBudgetError(limit: 20, reserved: 18, needed: 22)) {
            try DescriptorBudget(limit: 20, reserved: 18, httpConnections: 10_000, lineConnections: nil)
        }
        #expect(throws: DescriptorBudgetError(limit: 25, reserved: 18, needed: 26)) {
            try DescriptorBudget(limit: 25, reserved: 18, httpConnections: 10_000, lineConnections: 256)
        }
        let error = DescriptorBudgetError(limit: 20, reserved: 18, needed: 22)
        #expect(error.description.contains("ulimit -n) is 20"))
        #expect(error.description.contains("18 descriptors are needed before any client connection"))
        #expect(error.description.contains("to at least 22"))
    }
}
