import Testing
import WPTestThreads
import WPClient
import WPCollector
import WPLogging
import WPTestSupport
import WPRuntime

/// A glitched `loadTotalWatt` reaches the exposition as a rejected sample, not as energy, and
/// `/health` shows how many were refused.
@Suite(.ownThreads, .timeLimit(.minutes(3))) struct ImplausiblePowerTests {
    private static func device(watts: Double) -> Device {
        var device = Device.make(id: "ups-1", watts: watts)
        device.config.ratingVa = 3000
        return device
    }

    @Test func glitchIsCountedWithTheDeviceLabelsAndNotIntegrated() async throws {
        let client = ClientStub([.success(.make(devices: [Self.device(watts: 400)])),
                                 .success(.make(devices: [Self.device(watts: 1e12)])),
                                 .success(.make(devices: [Self.device(watts: 400)]))])
        let fixture = try CollectorFixture(client: client)
        for _ in 0..<3 {
            await fixture.collector.collect()
            fixture.clock.advance(by: .seconds(5))
        }
        let exposition = try fixture.exposition()
        let rejected = exposition.lines.filter { $0.name == "winpower_device_energy_samples_rejected_total" }
        #expect(rejected.map(\.value) == [1])
        #expect(rejected.first?.labels["device_id"] == "ups-1")
        #expect(rejected.first?.labels["reason"] == "implausible")
        let joules = exposition.lines.first { $0.name == "winpower_device_energy_joules_total" }
        #expect(joules?.value == 4000, "400 W bridged over the glitch for 10 s")
        #expect(fixture.collector.health.energySamplesRejected == 1)
        #expect(fixture.sink.records.filter { $0.message.hasPrefix("implausible power reading") }.count == 1)
    }

    /// The gauge shows what WinPower sent, glitches included (docs/metrics.md, "Implausible
    /// values are exported as sent"); only the energy counter refuses them.
    @Test func theGaugeShowsTheRawReadingWhileEnergyRefusesIt() async throws {
        for glitch in [-5000, 1e308] {
            let client = ClientStub([.success(.make(devices: [Self.device(watts: 400)])),
                                     .success(.make(devices: [Self.device(watts: glitch)]))])
            let fixture = try CollectorFixture(client: client)
            await fixture.collector.collect()
            fixture.clock.advance(by: .seconds(5))
            await fixture.collector.collect()
            let exposition = try fixture.exposition()
            #expect(exposition.value("winpower_device_load_total_watts") == glitch)
            #expect(exposition.value("winpower_device_energy_joules_total") == 0, "nothing integrated from \(glitch) W")
        }
    }
}

/// A battery reading outside its physical bounds (issue 49: `batCapacity` of `-1e308` on a UPS
/// on battery gave NUT `OB DISCHRG LB`) is refused as it arrives: missing from `/metrics` and
/// from the readings NUT and SNMP serve, counted by kind; plausible readings pass untouched.
@Suite(.ownThreads, .timeLimit(.minutes(3))) struct ImplausibleBatteryTests {
    private static func device(charge: Double?, runtime: Double?, voltage: Double?) -> Device {
        var device = Device.make(id: "ups-1", watts: 400)
        device.realtime.mode = 4   // on battery: an outage
        device.realtime.batCapacity = charge
        device.realtime.batRemainTime = runtime
        device.realtime.batVoltP = voltage
        return device
    }

    @Test(arguments: [-1e308, -0.5, 100.5, 1e308, .nan, .infinity])
    func anImpossibleChargeIsMissingEverywhereAndCounted(charge: Double) async throws {
        let client = ClientStub([.success(.make(devices: [Self.device(charge: charge, runtime: 1_800, voltage: 54.2)]))])
        let fixture = try CollectorFixture(client: client)
        await fixture.collector.collect()
        let exposition = try fixture.exposition()
        #expect(exposition.value("winpower_device_battery_capacity") == nil, "\(charge) is not a charge")
        #expect(exposition.value("winpower_device_battery_voltage_volts") == 54.2, "the plausible readings stay")
        let refused = exposition.lines.filter { $0.name == "winpower_exporter_readings_refused_total" }
        #expect(refused.map { $0.labels["reading"] ?? "" } == ["battery_charge", "battery_runtime", "battery_voltage"])
        #expect(refused.map(\.value) == [1, 0, 0])
        let served = try #require(fixture.collector.devices.readings.first?.device.realtime)
        #expect(served.batCapacity == nil && served.batRemainTime == 1_800, "what NUT and the SNMP agent read")
    }

    @Test func runtimeAndVoltageHaveBoundsTooAndTheCounterAccumulates() async throws {
        let client = ClientStub([.success(.make(devices: [Self.device(charge: 50, runtime: -60, voltage: 5_000)])),
                                 .success(.make(devices: [Self.device(charge: 0, runtime: 700_000, voltage: -1)])),
                                 .success(.make(devices: [Self.device(charge: 100, runtime: 0, voltage: 0)]))])
        let fixture = try CollectorFixture(client: client)
        var served: [RealtimeReadings] = []
        for _ in 0..<3 {
            await fixture.collector.collect()
            served.append(try #require(fixture.collector.devices.readings.first?.device.realtime))
            fixture.clock.advance(by: .seconds(5))
        }
        #expect(served.map(\.batRemainTime) == [nil, nil, 0])
        #expect(served.map(\.batVoltP) == [nil, nil, 0])
        #expect(served.map(\.batCapacity) == [50, 0, 100], "the bounds themselves are plausible")
        let refused = try fixture.exposition().lines.filter { $0.name == "winpower_exporter_readings_refused_total" }
        #expect(refused.map(\.value) == [0, 2, 2])
        let warnings = fixture.sink.records.filter { $0.message.hasPrefix("implausible battery reading refused") }
        #expect(warnings.count == 2, "once per device and reading: \(warnings.map(\.message))")
    }

    @Test func nothingRefusedNoFamily() async throws {
        let fixture = try CollectorFixture(client: ClientStub([.success(.make(devices: [Self.device(charge: 80, runtime: 1_800, voltage: 54)]))]))
        await fixture.collector.collect()
        #expect(!(try fixture.exposition().lines.contains { $0.name == "winpower_exporter_readings_refused_total" }))
    }
}
