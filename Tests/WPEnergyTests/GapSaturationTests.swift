import Testing
import WPTestThreads
import WPEnergy
import WPStorage
import WPRuntime
import WPTestSupport

/// A loaded gap count at the top of `Int` must not trap the next gap (the service would
/// crash-loop on the same state file).
@Suite(.ownThreads, .timeLimit(.minutes(3))) struct GapSaturationTests {
    @Test func gapCountsSaturateWhenIntegrating() {
        var seed = EnergyState()
        seed.devices["ups-1"] = StoredDeviceEnergy(joules: 10, gaps: Int.max)
        var integrator = EnergyIntegrator<ManualClock.Instant>(configuration: EnergyConfiguration(maxGap: .seconds(60)),
                                                              seed: seed)
        let start = ManualClock.Instant(offset: .zero)
        integrator.integrate([EnergySample(deviceID: "ups-1", watts: 100)], at: start)
        integrator.integrate([EnergySample(deviceID: "ups-1", watts: 100)], at: start.advanced(by: .seconds(120)))
        integrator.integrate([EnergySample(deviceID: "ups-1", watts: 100)], at: start.advanced(by: .seconds(240)))
        #expect(integrator.total(for: "ups-1") == DeviceEnergy(joules: 10, gaps: StoredDeviceEnergy.maxGaps))
    }
}
