import Testing
import WPTestThreads
import WPMetrics
import WPRuntime
import WPTestSupport

@Suite(.ownThreads, .timeLimit(.minutes(3))) struct SummaryTests {
    private let objectives: [Double: Double] = [0.5: 0.05, 0.9: 0.01, 0.99: 0.001]

    @Test(arguments: [10, 1_000, 20_000])
    func quantilesStayWithinTheDeclaredError(count: Int) throws {
        let summary = try Summary(name: "s", help: "h", configuration: .init(objectives: objectives), clock: ManualClock())
        var generator = SplitMix64(seed: UInt64(count))
        var values: [Double] = []
        for _ in 0..<count {
            let value = Double(generator.next() % 1_000_000) / 1000
            values.append(value)
            summary.observe(value)
        }
        values.sort()
        let snapshot = summary.snapshot
        #expect(snapshot.count == UInt64(count))
        for (quantile, value) in zip(snapshot.quantiles, snapshot.values) {
            let epsilon = try #require(objectives[quantile])
            let lowRank = max(0, Int((quantile - epsilon) * Double(count)) - 1)
            let highRank = min(count - 1, Int(((quantile + epsilon) * Double(count)).rounded(.up)))
            #expect(value >= values[lowRank] && value <= values[highRank],
                    "q\(quantile) = \(value) outside [\(values[lowRank]), \(values[highRank])]")
        }
    }

    @Test func oldObservationsLeaveTheWindow() throws {
        let clock = ManualClock()
        let summary = try Summary(name: "s", help: "h",
                                  configuration: .init(objectives: [0.5: 0.05], maxAge: .seconds(50), ageBuckets: 5),
                                  clock: clock)
        for _ in 0..<100 { summary.observe(1) }
        clock.advance(by: .seconds(30))
        for _ in 0..<100 { summary.observe(100) }
        #expect(summary.snapshot.values == [1])  // the oldest stream still holds both halves
        clock.advance(by: .seconds(25))  // first batch is older than maxAge now
        #expect(summary.snapshot.values == [100])
        clock.advance(by: .seconds(3600))
        #expect(summary.snapshot.values.first?.isNaN == true)
        #expect(summary.snapshot.count == 200)  // count and sum are cumulative
        #expect(summary.snapshot.sum == 10_100)
    }

    @Test func emptySummaryReportsNaNQuantiles() throws {
        let summary = try Summary(name: "s", help: "h", configuration: .init(objectives: [0.5: 0.05]), clock: ManualClock())
        #expect(summary.snapshot.values.count == 1)
        #expect(summary.snapshot.values[0].isNaN)
        let plain = try Summary(name: "p", help: "h", configuration: .init(objectives: [:]), clock: ManualClock())
        plain.observe(2)
        #expect(plain.snapshot.quantiles.isEmpty && plain.snapshot.sum == 2)
    }

    @Test func rejectsBadObjectivesAndWindows() {
        #expect(throws: MetricsError.self) { try Summary(name: "s", help: "h", configuration: .init(objectives: [1.5: 0.1])) }
        #expect(throws: MetricsError.self) { try Summary(name: "s", help: "h", configuration: .init(objectives: [0.5: -1])) }
        #expect(throws: MetricsError.self) { try Summary(name: "s", help: "h", configuration: .init(ageBuckets: 0)) }
        #expect(throws: MetricsError.self) { try Summary(name: "s", help: "h", configuration: .init(maxAge: .zero)) }
    }
}
