import Foundation
import Testing
import WPTestThreads
import WPClient
import WPCollector
import WPLogging
import WPScheduler
import WPRuntime
import WPTestSupport
@testable import WPExporter

/// Ten servers on one exporter: 3 down, 1 hung, 1 rejecting the password, 5 healthy. The
/// healthy ones collect on every tick of their schedules and `/metrics` answers from the
/// merged cache throughout.
@Suite(.ownThreads, .timeLimit(.minutes(3))) struct ServersIsolationTests {
    static let names = (0..<10).map { "s\($0)" }

    static func clients(_ hanging: HangingClient) -> [(name: String, client: any WinPowerClient)] {
        names.enumerated().map { index, name in
            let client: any WinPowerClient = switch index {
            case 0..<5: ClientStub([.success(.make(devices: [.make(id: "ups-1", watts: 100), .make(id: "ups-2", watts: 200)]))])
            case 5..<8: ClientStub([.failure(ClientError(.network, "connection refused"))])
            case 8: hanging
            default: ClientStub([.failure(ClientError(.auth, "login rejected: wrong user name or password"))])
            }
            return (name, client)
        }
    }

    @Test func downHungAndRejectedServersDelayNeitherTheOthersNorAScrape() async throws {
        let clock = ManualClock()
        let hanging = HangingClient()
        let harness = try ServersHarness(servers: Self.clients(hanging), clock: clock)
        let pipelines = harness.exporter.pipelines
        #expect(pipelines.count == 10)
        let running = pipelines.map { pipeline in Task { await pipeline.scheduler.run() } }
        let others = pipelines.filter { $0.name != "s8" }
        let merger = harness.exporter.merger
        for tick in 0..<4 {
            if tick > 0 { clock.advance(by: .seconds(5)) }
            // 10 schedulers waiting for their next tick (s8's request is held meanwhile).
            await clock.waitForSleepers(10)
            await harness.until("tick \(tick) of the 9 servers that answer, merged") {
                others.allSatisfy { $0.scheduler.statistics.completed == tick + 1 } && !merger.isMerging
            }
            let samples = try await harness.scrape()
            for index in 0..<5 {
                let labels = "server=\"s\(index)\",site=\"site-\(index % 2)\""
                #expect(samples["winpower_exporter_up{\(labels)}"] == 1)
                #expect(samples["winpower_exporter_device_count{\(labels)}"] == 2)
                #expect(samples.keys.contains { $0.hasPrefix("winpower_device_load_total_watts{\(labels),device_id=\"ups-1\"") })
                #expect(samples["winpower_exporter_scrape_errors_total{\(labels),error_type=\"network\"}"] == 0)
            }
            for index in 5..<8 {
                let labels = "server=\"s\(index)\",site=\"site-\(index % 2)\""
                #expect(samples["winpower_exporter_up{\(labels)}"] == 0)
                #expect(samples["winpower_connection_status{\(labels)}"] == 0)
                #expect(samples["winpower_exporter_scrape_errors_total{\(labels),error_type=\"network\"}"] == Double(tick + 1))
            }
            #expect(samples["winpower_auth_status{server=\"s9\",site=\"site-1\"}"] == 0)
            #expect(samples["winpower_exporter_scrape_errors_total{server=\"s9\",site=\"site-1\",error_type=\"auth\"}"] == Double(tick + 1))
            #expect(samples["winpower_exporter_collections_skipped_total{server=\"s8\",site=\"site-0\"}"] == Double(tick))
            #expect(samples["winpower_exporter_up{server=\"s8\",site=\"site-0\"}"] == 0)
            #expect(samples["winpower_exporter_energy_state_reset"] == 0, "process-wide, once, unlabelled")
        }
        #expect(pipelines[8].scheduler.statistics.started == 1, "the hung collection still runs")
        // 100 W for 15 s (4 readings 5 s apart) on each healthy server.
        let samples = try await harness.scrape()
        for index in 0..<5 {
            let joules = samples.first { $0.key.hasPrefix("winpower_device_energy_joules_total{server=\"s\(index)\"")
                && $0.key.contains("device_id=\"ups-1\"") }?.value
            #expect(joules == 1500)
        }
        let ready = try await harness.get("/-/ready")
        #expect(ready.status == 503, "s8 never finished its first collection")
        #expect(ready.text == "not ready: no collection finished yet for s8\n")
        let health = try await harness.get("/health")
        #expect(health.status == 200)
        let report = try JSONDecoder().decode(ServersHealthReport.self, from: Data(health.text.utf8))
        #expect(report.status == "degraded")
        #expect(report.servers.map(\.name) == Self.names)
        #expect(report.servers.filter { $0.status == "healthy" }.map(\.name) == ["s0", "s1", "s2", "s3", "s4"])
        #expect(report.servers[8].lastCollection.inProgress)
        #expect(report.servers[9].winPower.authenticated == false)
        #expect(report.deviceCount == 10)
        #expect(!health.text.contains("s3cr3t"))

        #expect(hanging.calls == 1)
        // WinPower's timeout ends the hung collection; then nothing runs and shutdown waits
        // for nothing (no graceful-shutdown timer on the manual clock).
        hanging.release()
        await harness.until("s8's collection to end") { pipelines[8].scheduler.statistics.completed == 1 }
        for task in running { task.cancel() }
        for task in running { await task.value }
        await harness.exporter.close()
        #expect(!harness.logs.records.contains { $0.message.contains("s3cr3t") })
    }

    @Test func readyOnceEveryServerFinishedAFirstCollectionEvenAFailedOne() async throws {
        let clock = ManualClock()
        let harness = try ServersHarness(servers: [("a", ClientStub([.success(.make())])),
                                                   ("b", ClientStub([.failure(ClientError(.network, "refused"))]))],
                                         clock: clock)
        #expect(try await harness.get("/-/ready").status == 503)
        await harness.exporter.pipelines[0].collector.collect()
        #expect(try await harness.get("/-/ready").text == "not ready: no collection finished yet for b\n")
        await harness.exporter.pipelines[1].collector.collect()
        #expect(try await harness.get("/-/ready").status == 200)
        let health = try await harness.get("/health")
        #expect(health.status == 200 && health.text.contains("\"status\":\"degraded\""))
        clock.advance(by: .seconds(60))
        #expect(try await harness.get("/health").status == 503, "no server fresh: the whole is unhealthy")
        await harness.exporter.close()
    }
}
