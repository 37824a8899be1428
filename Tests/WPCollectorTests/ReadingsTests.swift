import Foundation
import Testing
import WPTestThreads
import WPClient
import WPCollector
import WPSimulator
import WPTestSupport
import WPRuntime

/// Three-phase UPSs, passed-through readings and alarm details, end to end from the
/// simulator's JSON through the real client to the exposition.
@Suite(.ownThreads, .timeLimit(.minutes(4))) struct ReadingsTests {
    static let phaseFamilies = ["winpower_device_phase_input_voltage_volts", "winpower_device_phase_input_current_amperes",
                                "winpower_device_phase_output_voltage_volts", "winpower_device_phase_output_current_amperes",
                                "winpower_device_phase_load_watts", "winpower_device_phase_load_va"]

    static func fixture(devices: Int, readings: ReadingsPolicy = ReadingsPolicy(),
                        configure: (inout WinPowerSimulator.Configuration) -> Void) throws -> (SimulatorHarness, CollectorFixture) {
        let harness = SimulatorHarness(devices: devices, configure: configure)
        var configuration = CollectorConfiguration(target: "http://winpower.test:8081")
        configuration.readings = readings
        let fixture = try CollectorFixture(client: harness.makeClient(), clock: harness.clock, configuration: configuration,
                                           epoch: harness.epoch)
        return (harness, fixture)
    }

    @Test func aThreePhaseUPSShowsEveryPhaseAndKeepsItsPhaseOneSeries() async throws {
        let (harness, fixture) = try Self.fixture(devices: 2) { $0.threePhaseDevices = 1 }
        await fixture.collector.collect()
        let exposition = try fixture.exposition()
        let t = harness.simulator.simulatedSeconds
        let three = harness.simulator.devices[0]
        let single = harness.simulator.devices[1]
        let sent = Dictionary(uniqueKeysWithValues: three.realtimeFields(at: t)).compactMapValues(Double.init)
        for (family, key) in zip(Self.phaseFamilies, ["inputVolt", "inputCurrent", "outputVolt", "outputCurrent", "loadWatt", "loadVa"]) {
            for phase in 1...3 {
                let labels = ["device_id": three.id, "phase": "\(phase)"]
                #expect(exposition.value(family, labels) == sent["\(key)\(phase)"], "\(family) phase \(phase)")
            }
            #expect(exposition.samples(family, ["device_id": single.id]).isEmpty, "no phase series for a single-phase UPS")
        }
        // The seed's phase-1 families hold phase 1, as before.
        #expect(exposition.value("winpower_device_input_voltage", ["device_id": three.id]) == sent["inputVolt1"])
        #expect(exposition.value("winpower_device_load_phase1_watts", ["device_id": three.id]) == sent["loadWatt1"])
        #expect(exposition.value("winpower_device_load_total_watts", ["device_id": three.id]) == sent["loadTotalWatt"])
        #expect(exposition.value("winpower_device_input_phases", ["device_id": three.id]) == 3)
        #expect(exposition.value("winpower_device_output_phases", ["device_id": three.id]) == 3)
        #expect(exposition.samples("winpower_device_input_phases", ["device_id": single.id]).isEmpty)
    }

    @Test func aSinglePhaseFleetRendersNoNewFamily() async throws {
        let (_, fixture) = try Self.fixture(devices: 7) { _ in }
        await fixture.collector.collect()
        let text = String(decoding: fixture.collector.snapshot.text, as: UTF8.self)
        for family in Self.phaseFamilies + ["winpower_device_input_phases", "winpower_device_reading",
                                            "winpower_exporter_readings_dropped_total"] {
            #expect(!text.contains(family), "\(family)")
        }
    }

    @Test func unknownReadingsPassThroughUnderTheCaps() async throws {
        let (harness, fixture) = try Self.fixture(devices: 4, readings: ReadingsPolicy(maxPerDevice: 5, maxPerServer: 12)) {
            $0.extraReadings = 8
        }
        await fixture.collector.collect()
        let exposition = try fixture.exposition()
        // Device 2 is disconnected: every reading empty, nothing to pass through.
        let ids = harness.simulator.devices.filter { $0.role != .disconnected }.map(\.id).sorted()
        #expect(exposition.samples("winpower_device_reading", ["device_id": ids[0]]).count == 5)
        #expect(exposition.samples("winpower_device_reading", ["device_id": ids[1]]).count == 5)
        #expect(exposition.samples("winpower_device_reading", ["device_id": ids[2]]).count == 2, "the server's cap of 12")
        #expect(exposition.samples("winpower_device_reading", ["key": "bypassState"]).isEmpty, "text is never exported")
        let t = harness.simulator.simulatedSeconds
        let first = try #require(harness.simulator.devices.first { $0.id == ids[0] })
        let emdTemp = Dictionary(uniqueKeysWithValues: first.realtimeFields(at: t))["emdTemp"].flatMap(Double.init)
        #expect(exposition.value("winpower_device_reading", ["device_id": ids[0], "section": "realtime", "key": "emdTemp"]) == emdTemp)
        #expect(exposition.value("winpower_exporter_readings_dropped_total", ["reason": "device"]) == 9)
        #expect(exposition.value("winpower_exporter_readings_dropped_total", ["reason": "server"]) == 3)
        harness.clock.advance(by: .seconds(5))
        await fixture.collector.collect()
        #expect(try fixture.exposition().value("winpower_exporter_readings_dropped_total", ["reason": "device"]) == 18,
                "a counter: every collection adds what it left out")
    }

    @Test func tenThousandReadingsOfOneDeviceAreCappedAndCounted() async throws {
        let (_, fixture) = try Self.fixture(devices: 1) { $0.extraReadings = 10_000 }
        await fixture.collector.collect()
        let exposition = try fixture.exposition()
        #expect(exposition.samples("winpower_device_reading").count == ReadingsPolicy().maxPerDevice)
        #expect(exposition.value("winpower_exporter_readings_dropped_total", ["reason": "device"])
                == Double(10_000 - ReadingsPolicy().maxPerDevice))
    }

    @Test func passthroughOffExportsAndCountsNothing() async throws {
        let (_, fixture) = try Self.fixture(devices: 2, readings: ReadingsPolicy(passthrough: false)) { $0.extraReadings = 20 }
        await fixture.collector.collect()
        let text = String(decoding: fixture.collector.snapshot.text, as: UTF8.self)
        #expect(!text.contains("winpower_device_reading"))
        #expect(!text.contains("winpower_exporter_readings_dropped_total"))
    }

    @Test func duplicateMembersGiveOneSeries() async throws {
        var device = Device.make(id: "ups-1", watts: 100)
        device.extraReadings = [ExtraReading(section: .realtime, key: "emdTemp", value: 20),
                                ExtraReading(section: .realtime, key: "emdTemp", value: 21),
                                ExtraReading(section: .config, key: "emdTemp", value: 22)]
        let fixture = try CollectorFixture(client: ClientStub([.success(.make(devices: [device]))]))
        await fixture.collector.collect()
        let exposition = try fixture.exposition()
        #expect(exposition.value("winpower_device_reading", ["section": "realtime", "key": "emdTemp"]) == 20)
        #expect(exposition.value("winpower_device_reading", ["section": "config", "key": "emdTemp"]) == 22)
    }

    @Test func alarmDetailsReachTheHealthOfTheCollector() async throws {
        let (harness, fixture) = try Self.fixture(devices: 5) { $0.alarmShapes = true }
        await fixture.collector.collect()
        let health = fixture.collector.health
        let test = try #require(harness.simulator.devices.first { $0.role == .batteryTest })
        let alarms = try #require(health.alarms.first { $0.deviceID == test.id }).alarms
        #expect(alarms.first == Alarm(code: "501", name: "BatteryTestInProgress"))
        #expect(alarms.contains { $0.message == "Battery test running, do not disconnect mains" && $0.id != nil })
        let exposition = try fixture.exposition()
        #expect(exposition.value("winpower_device_active_alarm", ["device_id": test.id, "alarm_code": "501"]) == 1)
        let fault = try #require(harness.simulator.devices.first { $0.role == .fault })
        #expect(health.alarms.first { $0.deviceID == fault.id }?.alarms == [Alarm(code: "0x0107")], "a plain code string")
        #expect(health.alarms.map(\.deviceID) == health.alarms.map(\.deviceID).sorted())
    }
}
