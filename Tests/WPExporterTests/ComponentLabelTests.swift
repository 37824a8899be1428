import Testing
import WPTestThreads
import WPCollector
import WPLogging
import WPTestSupport
@testable import WPExporter

/// The exporter's components log under the label of the logger it is given (an embedding
/// service's `winpower` → `winpower.collector`), or under their bare names as the command-line
/// tool writes them.
@Suite(.ownThreads, .timeLimit(.minutes(4))) struct ComponentLabelTests {
    @Test func componentsNestUnderTheGivenLabel() async throws {
        let harness = try await ExporterHarness(devices: 2)
        await harness.exporter.collector.collect()
        await harness.shutdown()
        let labels = Set(harness.logs.records.map(\.logger))
        // The exporter's own records carry the label it was given; every other label is one of
        // its components nested under it ("client" is the harness's own client logger).
        #expect(labels.contains("test"))
        #expect(labels.contains("test.http"))
        #expect(labels.contains("test.collector"))
        let strays = labels.filter { $0 != "test" && $0 != "client" && !$0.hasPrefix("test.") }
        #expect(strays.isEmpty, "labels outside the given one: \(strays.sorted())")
    }

    @Test func bareComponentLabelsAsTheExecutableWritesThem() async throws {
        let harness = try await ExporterHarness(devices: 2, componentLabels: .bare)
        await harness.exporter.collector.collect()
        await harness.shutdown()
        let labels = Set(harness.logs.records.map(\.logger))
        #expect(labels.contains("test"))
        #expect(labels.contains("http"))
        #expect(labels.contains("collector"))
        #expect(!labels.contains { $0.hasPrefix("test.") })
    }
}
