import Foundation
import Testing
import WPTestThreads
import WPCollector
import WPConfig
import WPServer
import WPSimulator
import WPTestSupport
@testable import WPExporter

/// What issue-level users see over HTTP: the area of the list request, alarm texts in
/// `/health`, three-phase and passed-through series on `/metrics`.
@Suite(.ownThreads, .timeLimit(.minutes(4))) struct DeviceReadingsEndToEndTests {
    @Test func areaSelectionListsOnlyThatAreasDevices() async throws {
        let area = SimulatedDevice.areaId(1)
        let harness = try await ExporterHarness(devices: 6, configure: { $0.areas = 2 },
                                                configureExporter: { $0.winPower.areaId = area })
        await harness.exporter.collector.collect()
        let samples = try await harness.scrape()
        #expect(samples["winpower_exporter_device_count"] == 3)
        for device in harness.simulator.devices {
            let listed = Exposition.value(samples, "winpower_device_info", device: device.id) != nil
            #expect(listed == (device.areaId == area), "device \(device.index) in \(device.areaId)")
        }
        let query = try #require(harness.simulator.lastListRequest?.target)
        #expect(query.contains("areaId=\(area)") && query.contains("includeSubArea=true"))
        await harness.shutdown()
    }

    @Test func withoutSubAreasTheRootListsOnlyItsOwnDevices() async throws {
        let harness = try await ExporterHarness(devices: 6, configure: { $0.areas = 3 },
                                                configureExporter: { $0.winPower.includeSubArea = false })
        await harness.exporter.collector.collect()
        let samples = try await harness.scrape()
        #expect(samples["winpower_exporter_device_count"] == 2, "devices 0 and 3 are in the root area")
        #expect(harness.simulator.lastListRequest?.target.contains("includeSubArea=false") == true)
        await harness.shutdown()
    }

    @Test func healthShowsWhatTheAlarmsSay() async throws {
        let harness = try await ExporterHarness(devices: 5, configure: { $0.alarmShapes = true })
        await harness.exporter.collector.collect()
        let response = try await harness.get("/health")
        let document = try #require(try JSONSerialization.jsonObject(with: Data(response.text.utf8)) as? [String: Any])
        let alarms = try #require(document["alarms"] as? [[String: Any]])
        let test = try #require(harness.simulator.devices.first { $0.role == .batteryTest })
        let entry = try #require(alarms.first { $0["device_id"] as? String == test.id })
        #expect(entry["device_name"] as? String == test.alias)
        let list = try #require(entry["alarms"] as? [[String: Any]])
        #expect(list.first?["code"] as? String == "501")
        #expect(list.first?["name"] as? String == "BatteryTestInProgress")
        #expect(list.contains { $0["message"] as? String == "Battery test running, do not disconnect mains" })
        let onBattery = try #require(harness.simulator.devices.first { $0.role == .onBattery })
        #expect(alarms.contains { $0["device_id"] as? String == onBattery.id })
        let normal = try #require(harness.simulator.devices.first { $0.role == .normal })
        #expect(!alarms.contains { $0["device_id"] as? String == normal.id }, "no entry without alarms")
        await harness.shutdown()
    }

    @Test func threePhaseAndPassedThroughSeriesOverHTTP() async throws {
        let harness = try await ExporterHarness(devices: 2, configure: { $0.threePhaseDevices = 1; $0.extraReadings = 20 },
                                                configureExporter: { $0.winPower.maxReadingsPerDevice = 20 })
        await harness.exporter.collector.collect()
        let samples = try await harness.scrape()
        let three = harness.simulator.devices[0]
        let phases = samples.filter { $0.key.hasPrefix("winpower_device_phase_output_voltage_volts{") && $0.key.contains(three.id) }
        #expect(phases.count == 3)
        let readings = samples.filter { $0.key.hasPrefix("winpower_device_reading{") && $0.key.contains(three.id) }
        #expect(readings.count == 20, "20 unknown numeric members, 20 series; the text member is skipped")
        await harness.shutdown()
    }
}
