// The test target of the example below, as docs/embedding-exporter.md shows it:
// Package.swift: .testTarget(name: "ServiceTests", dependencies: [
//     .product(name: "WPExporterTesting", package: "wpexporter")])
import Testing
import WPConfig
import WPExporter
import WPExporterTesting
import WPRuntime
import WPSimulator
import WPTestThreads

// The example docs/embedding-exporter.md gives an embedder, as it is there (DocSnippetsSyncTests).
@Test func everyUPSIsExported() async throws {
    let harness = try await ExporterTestHarness(devices: 3)
    await harness.collect()
    let metrics = try await harness.metrics()
    #expect(metrics.contains("winpower_exporter_up 1"))
    await harness.shutdown()
}

/// The testing product: an exporter against an in-process simulated WinPower, on a manual
/// clock, its energy in memory.
@Suite(.ownThreads, .timeLimit(.minutes(4))) struct ExporterTestHarnessTests {
    @Test func aCollectionShowsEveryDeviceAndTimeMovesOnlyWhenAdvanced() async throws {
        let harness = try await ExporterTestHarness(devices: 4)
        await harness.collect()
        let first = try await harness.metrics()
        #expect(first.split(separator: "\n").filter { $0.hasPrefix("winpower_device_info{") }.count == 4)
        #expect(harness.simulator.counters.listCalls == 1)
        harness.advance(by: .seconds(5))
        await harness.collect()
        let later = try await harness.metrics()
        #expect(harness.simulator.counters.listCalls == 2)
        // Five seconds at the simulator's load: the devices' energy counters grew (in memory).
        let joules = later.split(separator: "\n").filter { $0.hasPrefix("winpower_device_energy_joules_total{") }
            .compactMap { $0.split(separator: " ").last.flatMap { Double($0) } }
        #expect(joules.count == 4 && joules.reduce(0, +) > 0, "\(joules)")
        #expect(try await harness.metrics(path: "/health").contains("\"status\""))
        await harness.shutdown()
    }

    @Test func theSimulatorAndTheConfigurationAreTheTestsToShape() async throws {
        let harness = try await ExporterTestHarness(devices: 2, simulator: { $0.faults = [.unreachable] },
                                                    configuration: { $0.scheduler.collectionInterval = .seconds(10) })
        await harness.collect()
        #expect(try await harness.metrics().contains("winpower_exporter_up 0"))
        harness.simulator.disable(.unreachable)
        harness.advance(by: .seconds(5))
        await harness.collect()
        #expect(try await harness.metrics().contains("winpower_exporter_up 1"))
        await #expect(throws: ExporterTestHarness.HarnessError.self) { _ = try await harness.metrics(path: "/nothing-here") }
        await harness.shutdown()
    }

    @Test func aRefusedConfigurationIsThrownAndReleasesTheSimulator() async throws {
        await #expect(throws: ExporterError.self) {
            _ = try await ExporterTestHarness(configuration: { $0.scheduler.collectionInterval = .zero })
        }
    }
}
