import Synchronization
import Testing
import WPTestThreads
import WPClient
import WPCollector
import WPConfig
import WPEnergy
import WPRuntime
import WPTestSupport
@testable import WPExporter

/// A pipeline a reload retires is released once it has stopped: nothing of the exporter keeps
/// a removed server's scheduler, collector or client alive across reloads.
@Suite(.ownThreads, .timeLimit(.minutes(3))) struct RetiredPipelineTests {
    final class Weak<T: AnyObject>: @unchecked Sendable {
        weak var value: T?
        init(_ value: T) { self.value = value }
    }

    /// Weak references to `pipeline` and its collector; no strong one outlives the call.
    static func weakly(_ pipeline: ServerPipeline<ManualClock>?) throws
        -> (Weak<ServerPipeline<ManualClock>>, Weak<WinPowerCollector<ManualClock>>) {
        let pipeline = try #require(pipeline)
        return (Weak(pipeline), Weak(pipeline.collector))
    }

    @Test func aRemovedServersPipelineIsReleasedAfterTheReloadAndItsStop() async throws {
        let next = ServersReloadTests.NextConfiguration()
        let harness = try ServersHarness(
            servers: [("a", ServersReloadTests.stub(100)), ("b", ServersReloadTests.stub(200))],
            reload: { LoadedConfiguration(configuration: try #require(next.value.withLock { $0 })) },
            clientFactory: { _ in ServersReloadTests.stub(400) })
        let exporter = harness.exporter
        let fleet = exporter.fleet
        let running = Task { await fleet.run() }
        let (pipeline, collector) = try Self.weakly(exporter.pipelines.first { $0.name == "b" })
        let key = EnergyKey.qualified(server: "b", device: "ups-1")
        await harness.until("b collected once") { exporter.meter.totals[key] != nil }

        var configuration = exporter.configuration
        configuration.servers = [configuration.servers[0]]
        let applied = await ServersReloadTests.applied(harness, next, configuration)
        #expect(applied?.summary.contains("removed b") == true)
        await fleet.awaitStopped(["b"])
        #expect(fleet.retiringCount == 0, "a stopped pipeline is no longer kept for shutdown")
        await harness.until("b's pipeline released") { pipeline.value == nil && collector.value == nil }
        #expect(pipeline.value == nil)
        #expect(collector.value == nil)
        running.cancel()
        await running.value
    }
}
