import Foundation
import Testing
import WPTestThreads
import WPCollector
import WPConfig
import WPScheduler
import WPServer
import WPSimulator
import WPRuntime
import WPTestSupport
@testable import WPExporter

/// The simulator on a socket, the exporter against it over real HTTP, scraped over real HTTP.
@Suite(.ownThreads, .timeLimit(.minutes(4))) struct EndToEndTests {
    @Test func everyDeviceValueOnMetricsEqualsTheSimulators() async throws {
        let harness = try await ExporterHarness(devices: 7)
        await harness.exporter.collector.collect()
        let samples = try await harness.scrape()
        let t = harness.simulator.simulatedSeconds
        var compared = 0
        for device in harness.simulator.devices {
            let fields = Dictionary(device.realtimeFields(at: t), uniquingKeysWith: { first, _ in first })
            #expect(Exposition.value(samples, "winpower_device_connected", device: device.id)
                    == (device.role == .disconnected ? 0 : 1))
            for (field, metric) in RealtimeMetricTable.entries {
                let exported = Exposition.value(samples, metric, device: device.id)
                if let text = fields[field], let expected = Double(text) {
                    #expect(exported == expected, "\(metric) of device \(device.index)")
                    compared += 1
                } else {
                    #expect(exported == nil, "\(metric) of device \(device.index) must be omitted, not faked")
                }
            }
            #expect(Exposition.value(samples, "winpower_device_on_battery", device: device.id)
                    == (device.role == .disconnected ? nil : (device.role == .onBattery ? 1 : 0)))
        }
        #expect(compared > 100)
        #expect(samples["winpower_connection_status"] == 1)
        #expect(samples["winpower_auth_status"] == 1)
        #expect(samples["winpower_exporter_device_count"] == 7)
        #expect(samples.keys.contains { $0.hasPrefix("winpower_exporter_build_info{") })
        #expect(samples.keys.contains { $0.hasPrefix("process_resident_memory_bytes") })
        await harness.shutdown()
    }

    @Test func allOf250DevicesBehindAPageCapOf20AreExported() async throws {
        let harness = try await ExporterHarness(devices: 250) { $0.pageSizeCap = 20 }
        await harness.exporter.collector.collect()
        let samples = try await harness.scrape()
        let ids = Set(samples.keys.filter { $0.hasPrefix("winpower_device_info{") }.compactMap { key in
            key.firstRange(of: "device_id=\"").map { start in String(key[start.upperBound...].prefix { $0 != "\"" }) }
        })
        #expect(ids == Set(harness.simulator.devices.map(\.id)))
        #expect(samples["winpower_exporter_device_count"] == 250)
        #expect(harness.simulator.counters.listCalls >= 13)
        await harness.shutdown()
    }

    @Test func tokenExpiryMidRunCausesNoFailedCycle() async throws {
        let harness = try await ExporterHarness(devices: 3) {
            $0.tokenLifetime = .seconds(600)
            $0.earlyExpiryAge = .seconds(20)
            $0.faults = [.earlyExpiry]
        }
        for _ in 0..<4 {
            await harness.exporter.collector.collect()
            #expect(harness.exporter.collector.health.lastError == nil)
            harness.clock.advance(by: .seconds(15))
        }
        harness.clock.advance(by: .seconds(600))   // past the token's own expiry too
        await harness.exporter.collector.collect()
        let health = harness.exporter.collector.health
        #expect(health.lastError == nil)
        #expect(health.authenticated)
        #expect(harness.simulator.counters.logins >= 2)
        let samples = try await harness.scrape()
        #expect(!samples.contains { $0.key.hasPrefix("winpower_exporter_scrape_errors_total") && $0.value > 0 })
        #expect(samples["winpower_exporter_last_collection_success"] == 1)
        await harness.shutdown()
    }

    @Test func winPowerDownKeepsServingWithdrawsGaugesKeepsEnergyAndRecovers() async throws {
        let harness = try await ExporterHarness(devices: 3)
        let device = harness.simulator.devices[0].id
        await harness.exporter.collector.collect()
        harness.clock.advance(by: .seconds(5))
        await harness.exporter.collector.collect()
        let before = try await harness.scrape()
        let energy = try #require(Exposition.value(before, "winpower_device_energy_joules_total", device: device))
        #expect(energy > 0)
        #expect(try await harness.get("/health").status == 200)

        try await harness.simulatorServer.setUnreachable(true)
        harness.clock.advance(by: .seconds(5))
        await harness.exporter.collector.collect()
        var samples = try await harness.scrape()
        #expect(samples["winpower_connection_status"] == 0)
        #expect(Exposition.value(samples, "winpower_device_load_total_watts", device: device) != nil, "still fresh")
        #expect(try await harness.get("/health").status == 503)

        harness.clock.advance(by: .seconds(20))   // past the 15 s staleness window
        await harness.exporter.collector.collect()
        samples = try await harness.scrape()
        #expect(samples["winpower_connection_status"] == 0)
        #expect(Exposition.value(samples, "winpower_device_load_total_watts", device: device) == nil)
        #expect(Exposition.value(samples, "winpower_device_energy_joules_total", device: device) == energy)
        let health = try await harness.get("/health")
        #expect(health.status == 503)
        #expect(health.text.contains("\"reachable\":false"))

        try await harness.simulatorServer.setUnreachable(false)
        harness.clock.advance(by: .seconds(5))
        await harness.exporter.collector.collect()
        samples = try await harness.scrape()
        #expect(samples["winpower_connection_status"] == 1)
        #expect(Exposition.value(samples, "winpower_device_load_total_watts", device: device) != nil)
        #expect(try #require(Exposition.value(samples, "winpower_device_energy_joules_total", device: device)) >= energy)
        #expect(try await harness.get("/health").status == 200)
        await harness.shutdown()
    }

    /// WinPower accepts the request but does not answer: the collection hangs (until
    /// `winpower.timeout`), and the scheduler's skipped ticks still withdraw the readings once
    /// they are older than the staleness window.
    @Test func aHungCollectionStillLetsReadingsGoStaleOnSchedule() async throws {
        // The held request is released by the manual clock only: the client's own limits run on
        // the real clock and must outlast the test however slow the machine (under
        // ThreadSanitizer, beside the whole target, its 10 s API limit ended the request early:
        // no collection was left in flight, so the graceful-shutdown timer awaited below never
        // started and the test waited for it until its time limit).
        let harness = try await ExporterHarness(devices: 3, configure: { $0.slowDelay = .seconds(600) },
                                                configureExporter: { configuration in
                                                    configuration.scheduler.gracefulShutdownTimeout = .seconds(3600)
                                                    configuration.winPower.timeout = .seconds(3600)
                                                    configuration.winPower.apiTimeout = .seconds(3600)
                                                })
        let (clock, device) = (harness.clock, harness.simulator.devices[0].id)
        await harness.exporter.collector.collect()
        clock.advance(by: .seconds(5))
        await harness.exporter.collector.collect() // t = 5 s: the last reading
        let energy = try #require(Exposition.value(try await harness.scrape(), "winpower_device_energy_joules_total", device: device))
        harness.simulator.enable(.slow)
        let scheduler = harness.exporter.pipelines[0].scheduler
        let ticking = Task { await scheduler.run() }
        await clock.waitForSleepers(2) // the scheduler, and tick 0's request held by the simulator
        for _ in 0..<3 {               // ticks at 10, 15 and 20 s: skipped, the reading not yet stale
            clock.advance(by: .seconds(5))
            await clock.waitForSleepers(2)
        }
        var samples = try await harness.scrape()
        #expect(samples["winpower_exporter_up"] == 1)
        #expect(Exposition.value(samples, "winpower_device_load_total_watts", device: device) != nil)
        #expect(samples["winpower_exporter_collections_skipped_total"] == 3)
        var health = try await harness.get("/health")
        #expect(health.status == 200, "the last finished collection succeeded 15 s ago")
        #expect(health.text.contains("\"in_progress\":true"))

        clock.advance(by: .seconds(5))  // t = 25 s: the reading is 20 s old
        await clock.waitForSleepers(2)
        samples = try await harness.scrape()
        #expect(samples["winpower_exporter_up"] == 0)
        #expect(Exposition.value(samples, "winpower_device_load_total_watts", device: device) == nil)
        #expect(samples["winpower_exporter_device_count"] == 0)
        #expect(Exposition.value(samples, "winpower_device_energy_joules_total", device: device) == energy)
        #expect(samples["winpower_exporter_collections_skipped_total"] == 4)
        health = try await harness.get("/health")
        #expect(health.status == 503)

        harness.simulator.disable(.slow)
        ticking.cancel()
        // The graceful-shutdown timer has started only once the scheduler left its loop: from
        // then on no tick can run, so one advance releases the held request and nothing else.
        // (Counting sleepers could see the last tick's sleep still registered.)
        await clock.waitForSleeper(until: clock.now.advanced(by: .seconds(3600)))
        clock.advance(by: .seconds(600))
        await ticking.value
        #expect(scheduler.statistics.completed == 1)
        #expect(scheduler.statistics.abandoned == 0)
        samples = try await harness.scrape()
        #expect(Exposition.value(samples, "winpower_device_load_total_watts", device: device) != nil, "back when it answers")
        await harness.shutdown()
    }

    @Test func energyAfterARestartContinuesFromThePersistedTotal() async throws {
        let clock = ManualClock()
        let first = try await ExporterHarness(devices: 2, clock: clock)
        let device = first.simulator.devices[0].id
        await first.exporter.collector.collect()
        clock.advance(by: .seconds(10))
        await first.exporter.collector.collect()
        let persisted = try #require(Exposition.value(try await first.scrape(), "winpower_device_energy_joules_total", device: device))
        #expect(persisted > 0)
        await first.shutdown()

        let second = try await ExporterHarness(devices: 2, dataDirectory: first.dataDirectory, clock: clock)
        await second.exporter.collector.collect()
        let restarted = try #require(Exposition.value(try await second.scrape(), "winpower_device_energy_joules_total", device: device))
        #expect(restarted == persisted)
        clock.advance(by: .seconds(10))
        await second.exporter.collector.collect()
        let later = try #require(Exposition.value(try await second.scrape(), "winpower_device_energy_joules_total", device: device))
        #expect(later > persisted)
        await second.shutdown()
    }
}
