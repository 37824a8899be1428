import Testing
import WPTestThreads
import WPMetrics
import WPRuntime
import WPTestSupport

@Suite(.ownThreads, .timeLimit(.minutes(4))) struct ConcurrencyTests {
    @Test func manyWritersAndARendererAgree() async throws {
        let registry = MetricRegistry()
        let counter = try registry.counter(name: "events_total", help: "h")
        let gauges = try registry.gaugeVec(name: "load", help: "h", labelNames: ["device_id"])
        let histogram = try registry.histogram(name: "latency_seconds", help: "h")
        let summary = try registry.summary(name: "size_bytes", help: "h", clock: ManualClock())
        let byWriter = try registry.counterVec(name: "writes_total", help: "h", labelNames: ["writer"])
        let writers = 4
        let iterations = 5_000
        try await withThrowingTaskGroup(of: Void.self) { group in
            for writer in 0..<writers {
                group.addTask {
                    let mine = try byWriter.labels("\(writer)")
                    for iteration in 0..<iterations {
                        counter.increment()
                        mine.increment()
                        try gauges.labels("\(iteration % 10)").set(Double(iteration))
                        histogram.observe(Double(iteration % 100) / 100)
                        summary.observe(Double(iteration))
                        if iteration % 1_000 == 0 { gauges.remove("\(writer)") }
                    }
                }
            }
            group.addTask {
                for round in 0..<40 {
                    let bytes = registry.render(format: round.isMultiple(of: 2) ? .text : .openMetrics)
                    #expect(!bytes.isEmpty)
                    await Task.yield()
                }
            }
            try await group.waitForAll()
        }
        let total = Double(writers * iterations)
        #expect(counter.value == total)
        #expect(histogram.snapshot.count == UInt64(total))
        #expect(histogram.snapshot.cumulativeCounts.last == UInt64(total))
        #expect(summary.snapshot.count == UInt64(total))
        for writer in 0..<writers { #expect(try byWriter.labels("\(writer)").value == Double(iterations)) }
        let text = String(decoding: registry.render(format: .text), as: UTF8.self)
        #expect(text.contains("events_total 20000\n"))
    }
}
