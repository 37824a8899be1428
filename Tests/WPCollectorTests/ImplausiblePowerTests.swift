import Testing
import WPTestThreads
import WPClient
import WPCollector
import WPLogging
import WPTestSupport

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
