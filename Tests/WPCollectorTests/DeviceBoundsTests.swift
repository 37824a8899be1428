import Foundation
import Testing
import WPTestThreads
import WPClient
import WPCollector
import WPSimulator
import WPTestSupport
import WPRuntime

/// The client's bounds seen from the exposition and the health value, end to end from the
/// simulator's JSON: a 10 MB alias, a server answering one huge page, the page bound.
@Suite(.ownThreads, .timeLimit(.minutes(4))) struct DeviceBoundsTests {
    static func fixture(devices: Int, simulator: (inout WinPowerSimulator.Configuration) -> Void,
                        client: (inout WinPowerHTTPClient.Configuration) -> Void = { _ in })
        throws -> (SimulatorHarness, CollectorFixture) {
        let harness = SimulatorHarness(devices: devices, configure: simulator)
        let fixture = try CollectorFixture(client: harness.makeClient(configure: client), clock: harness.clock,
                                           configuration: CollectorConfiguration(target: "http://winpower.test:8081"),
                                           epoch: harness.epoch)
        return (harness, fixture)
    }

    @Test func aTenMegabyteAliasBecomesA256ByteNameInEverySeries() async throws {
        let (harness, fixture) = try Self.fixture(devices: 3) { $0.aliasBytes = 10_000_000 }
        #expect(harness.simulator.devices[0].alias.utf8.count == 10_000_000)
        await fixture.collector.collect()
        let exposition = try fixture.exposition()
        let series = exposition.samples("winpower_device_load_total_watts", ["device_id": harness.simulator.devices[0].id])
        #expect(series.count == 1)
        let named = exposition.lines.filter { $0.labels["device_id"] == harness.simulator.devices[0].id }
        #expect(named.count > 20)
        #expect(named.allSatisfy { $0.labels["device_name"] == String(repeating: "€", count: 85) })
        // Three devices, every family: well under a megabyte instead of 10 MB per series.
        #expect(fixture.collector.snapshot.text.count < 200_000)
        #expect(exposition.value("winpower_exporter_device_texts_truncated_total") == 1)
        #expect(fixture.collector.health.textsTruncated == 1)
        #expect(fixture.collector.health.deviceListIncomplete == nil)
        #expect(exposition.value("winpower_exporter_up") == 1)

        harness.clock.advance(by: .seconds(5))
        await fixture.collector.collect()
        #expect(try fixture.exposition().value("winpower_exporter_device_texts_truncated_total") == 2, "counted per collection")
    }

    @Test func aServerAnsweringOneHugePageKeepsTheBoundAndSucceeds() async throws {
        let (_, fixture) = try Self.fixture(devices: 300, simulator: { $0.pageSizeCap = 10_000 }) {
            $0.pageSize = 10_000
            $0.maxDevices = 50
        }
        await fixture.collector.collect()
        let exposition = try fixture.exposition()
        #expect(exposition.value("winpower_exporter_up") == 1)
        #expect(exposition.value("winpower_exporter_last_collection_success") == 1)
        #expect(exposition.value("winpower_exporter_device_count") == 50)
        #expect(exposition.value("winpower_exporter_devices_dropped_total", ["reason": "max_devices"]) == 250)
        #expect(exposition.value("winpower_exporter_devices_dropped_total", ["reason": "max_pages"]) == 0)
        #expect(exposition.value("winpower_exporter_devices_dropped_total", ["reason": "invalid"]) == 0)
        let health = fixture.collector.health
        #expect(health.devicesDropped == ["max_devices": 250])
        #expect(health.deviceListIncomplete?.contains("first 50 devices") == true)
        #expect(health.lastCollectionSucceeded)
    }

    @Test func thePageBoundIsCountedAndAFullReadClearsTheReason() async throws {
        let (_, fixture) = try Self.fixture(devices: 130, simulator: { _ in }) { $0.maxPages = 2 }
        await fixture.collector.collect()
        let exposition = try fixture.exposition()
        #expect(exposition.value("winpower_exporter_device_count") == 40)
        #expect(exposition.value("winpower_exporter_devices_dropped_total", ["reason": "max_pages"]) == 90)
        #expect(fixture.collector.health.deviceListIncomplete?.contains("page bound") == true)
    }

    @Test func aCompleteListHasNoReasonAndEveryCounterAtZero() async throws {
        let (_, fixture) = try Self.fixture(devices: 45, simulator: { _ in })
        await fixture.collector.collect()
        let exposition = try fixture.exposition()
        #expect(exposition.samples("winpower_exporter_devices_dropped_total").map(\.value) == [0, 0, 0])
        #expect(exposition.value("winpower_exporter_device_texts_truncated_total") == 0)
        #expect(fixture.collector.health.deviceListIncomplete == nil)
        #expect(fixture.collector.health.devicesDropped.isEmpty)
    }
}
