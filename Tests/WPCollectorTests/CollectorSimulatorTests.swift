import Foundation
import Testing
import WPTestThreads
import WPClient
import WPCollector
import WPSimulator
import WPTestSupport
import WPRuntime

/// The collector against the in-process simulator: what `/metrics` shows equals what the
/// simulated WinPower reports, device by device.
@Suite(.ownThreads, .timeLimit(.minutes(4))) struct CollectorSimulatorTests {
    @Test func everyDeviceValueEqualsTheSimulators() async throws {
        let harness = SimulatorHarness(devices: 10)
        let fixture = try CollectorFixture(client: harness.makeClient(), clock: harness.clock, epoch: harness.epoch)
        for step in 0..<3 {
            if step > 0 { harness.clock.advance(by: .seconds(5)) }
            await fixture.collector.collect()
            let exposition = try fixture.exposition()
            let t = harness.simulator.simulatedSeconds
            #expect(exposition.value("winpower_exporter_device_count") == 10)
            #expect(exposition.value("winpower_exporter_up") == 1)
            for simulated in harness.simulator.devices {
                let labels = ["device_id": simulated.id]
                #expect(exposition.samples("winpower_device_info", labels).first?.labels["device_name"] == simulated.alias)
                #expect(exposition.value("winpower_device_connected", labels) == (simulated.role == .disconnected ? 0 : 1))
                let fields = Dictionary(uniqueKeysWithValues: simulated.realtimeFields(at: t))
                for (field, metric) in RealtimeMetricTable.entries {
                    let sent = fields[field].flatMap(Double.init)
                    #expect(exposition.value(metric, labels) == sent, "\(metric) of device \(simulated.index) at t=\(t)")
                }
                let fault: Double? = switch simulated.role {
                case .fault: 1
                case .disconnected: nil // every reading empty: unknown, not "no fault"
                default: 0
                }
                #expect(exposition.value("winpower_device_fault", labels) == fault)
                // Ratings and inventory, read from the simulator's JSON with Foundation's parser.
                let object = try #require(try JSONSerialization.jsonObject(with: Data(simulated.json(at: t).utf8)) as? [String: Any])
                let config = try #require(object["config"] as? [String: String])
                for (field, metric) in [("ratingVa", "winpower_device_rated_apparent_power_va"),
                                        ("ratingVolt", "winpower_device_rated_voltage_volts"),
                                        ("ratingFreq", "winpower_device_rated_frequency_hertz"),
                                        ("ratingBatVolt", "winpower_device_rated_battery_voltage_volts")] {
                    let rated = try #require(config[field].flatMap(Double.init), "\(field) in the simulator's config")
                    #expect(exposition.value(metric, labels) == rated, "\(metric) of device \(simulated.index)")
                }
                let asset = try #require(object["assetDevice"] as? [String: Any])
                let info = exposition.samples("winpower_device_info", labels).first?.labels
                #expect(info?["model"] == asset["model"] as? String)
                #expect(info?["firmware_version"] == asset["firmwareVersion"] as? String)
                #expect(info?["device_type"] == (asset["deviceType"] as? Int).map(String.init))
                #expect(exposition.samples("winpower_device_fault_info", labels).first?.labels["fault_code"]
                        == (simulated.role == .fault ? simulated.faultCode : nil))
                if simulated.role != .disconnected {
                    #expect(exposition.value("winpower_device_on_battery", labels) == (simulated.role == .onBattery ? 1 : 0))
                    #expect(exposition.value("winpower_device_active_alarms", labels) == Double(simulated.alarmCodes.count))
                }
            }
        }
        let exposition = try fixture.exposition()
        #expect(exposition.value("winpower_api_response_time_seconds_count", ["endpoint": "login"]) == 1)
        #expect(exposition.value("winpower_api_response_time_seconds_count", ["endpoint": "device_list"]) == 3)
        #expect(exposition.value("winpower_auth_status") == 1)
        #expect((exposition.value("winpower_token_expiry_seconds") ?? 0) > 1700)
        let powered = harness.simulator.devices.first { $0.role == .normal }
        #expect((exposition.value("winpower_device_energy_joules_total", ["device_id": powered?.id ?? ""]) ?? 0) > 0)
    }

    @Test func winPowerDownThenBack() async throws {
        let harness = SimulatorHarness(devices: 3)
        let fixture = try CollectorFixture(client: harness.makeClient(), clock: harness.clock, epoch: harness.epoch)
        await fixture.collector.collect()
        harness.simulator.enable(.unreachable)
        for _ in 0..<4 {
            harness.clock.advance(by: .seconds(5))
            await fixture.collector.collect()
        }
        var exposition = try fixture.exposition()
        #expect(exposition.value("winpower_connection_status") == 0)
        #expect(exposition.samples("winpower_device_load_total_watts").isEmpty)
        #expect(exposition.samples("winpower_device_energy_joules_total").count == 3)
        #expect((exposition.value("winpower_exporter_scrape_errors_total", ["error_type": "network"]) ?? 0) == 4)
        harness.simulator.disable(.unreachable)
        harness.clock.advance(by: .seconds(5))
        await fixture.collector.collect()
        exposition = try fixture.exposition()
        #expect(exposition.samples("winpower_device_load_total_watts").count == 2, "the disconnected UPS sends no power")
        #expect(exposition.value("winpower_exporter_up") == 1)
    }

    @Test func secretsNeverReachMetricsHealthOrLogs() async throws {
        let harness = SimulatorHarness(devices: 2)
        let fixture = try CollectorFixture(client: harness.makeClient(), clock: harness.clock, epoch: harness.epoch)
        await fixture.collector.collect()
        harness.simulator.enable(.wrongCredentials)
        harness.simulator.enable(.unauthorized)
        harness.clock.advance(by: .seconds(5))
        await fixture.collector.collect()
        #expect(fixture.collector.health.lastError?.hasPrefix("auth") == true)
        let snapshot = fixture.collector.snapshot
        let outputs = [String(decoding: snapshot.text, as: UTF8.self), String(decoding: snapshot.openMetrics, as: UTF8.self),
                       fixture.collector.health.lastError ?? "", fixture.sink.allText, harness.sink.allText]
        let secrets = [harness.simulator.configuration.password] + harness.simulator.issuedTokens
        #expect(!secrets.isEmpty)
        for output in outputs {
            for secret in secrets {
                #expect(!output.contains(secret))
            }
        }
    }
}
