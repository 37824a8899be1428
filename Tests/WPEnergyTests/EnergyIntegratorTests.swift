import Testing
import WPTestThreads
import WPEnergy
import WPStorage
import WPTestSupport

@Suite(.ownThreads, .timeLimit(.minutes(3))) struct EnergyIntegratorTests {
    @Test func trapezoidBetweenConsecutiveSamples() {
        var integrator = makeIntegrator()
        integrator.integrate([sample(100)], at: at(0))
        #expect(integrator.total(for: "ups")?.joules == 0)
        integrator.integrate([sample(200)], at: at(10))
        #expect(integrator.total(for: "ups")?.joules == 1500)
        integrator.integrate([sample(200)], at: at(12.5))
        #expect(integrator.total(for: "ups")?.joules == 2000)
        #expect(integrator.total(for: "ups")?.wattHours == 2000.0 / 3600)
    }

    @Test func droppedSampleIsBridged() {
        var integrator = makeIntegrator()
        integrator.integrate([sample(100)], at: at(0))
        integrator.integrate([], at: at(5))  // device missing from this cycle
        integrator.integrate([sample(100)], at: at(10))
        #expect(integrator.total(for: "ups")?.joules == 1000)
    }

    @Test func gapLongerThanMaxGapIsSkippedAndCounted() {
        var integrator = makeIntegrator()
        integrator.integrate([sample(100)], at: at(0))
        integrator.integrate([sample(100)], at: at(5))
        let summary = integrator.integrate([sample(100)], at: at(65.5))  // 60.5 s > 60 s
        integrator.integrate([sample(100)], at: at(70.5))
        #expect(integrator.total(for: "ups") == DeviceEnergy(joules: 1000, gaps: 1))
        #expect(summary.gapDevices == ["ups"])
        #expect(summary.longestGap == .milliseconds(60_500))
    }

    @Test func intervalOfExactlyMaxGapIsIntegrated() {
        var integrator = makeIntegrator(maxGap: .seconds(30))
        integrator.integrate([sample(10)], at: at(0))
        integrator.integrate([sample(10)], at: at(30))
        #expect(integrator.total(for: "ups") == DeviceEnergy(joules: 300, gaps: 0))
    }

    /// Absent, non-finite and negative power and disconnected devices add nothing and break the
    /// chain: neither the interval before nor the one after them is integrated.
    @Test(arguments: [
        sample(nil), sample(.nan), sample(.infinity), sample(-.infinity),
        sample(-50), sample(-0.001), sample(100, connected: false),
    ])
    func unusableSampleBreaksTheChain(_ bad: EnergySample) {
        var integrator = makeIntegrator()
        integrator.integrate([sample(100)], at: at(0))
        let summary = integrator.integrate([bad], at: at(5))
        #expect(summary.unusable == 1)
        integrator.integrate([sample(100)], at: at(10))
        #expect(integrator.total(for: "ups")?.joules == 0)
        // The next valid sample started a new chain.
        integrator.integrate([sample(100)], at: at(15))
        #expect(integrator.total(for: "ups")?.joules == 500)
    }

    @Test func zeroPowerIsValidAndIntegratesToZero() {
        var integrator = makeIntegrator()
        integrator.integrate([sample(0)], at: at(0))
        integrator.integrate([sample(100)], at: at(10))
        #expect(integrator.total(for: "ups")?.joules == 500)
    }

    @Test func seededDevicesContinueAndNewDevicesStartAtZero() {
        let seed = EnergyState(devices: ["old": StoredDeviceEnergy(joules: 7200, gaps: 2)])
        var integrator = EnergyIntegrator<Instant>(configuration: EnergyConfiguration(), seed: seed)
        integrator.integrate([sample(50, id: "old"), sample(50, id: "new")], at: at(0))
        #expect(integrator.total(for: "old") == DeviceEnergy(joules: 7200, gaps: 2))
        #expect(integrator.total(for: "new") == DeviceEnergy(joules: 0, gaps: 0))
        integrator.integrate([sample(50, id: "old"), sample(50, id: "new")], at: at(4))
        #expect(integrator.total(for: "old")?.joules == 7400)
        #expect(integrator.total(for: "new")?.joules == 200)
        // Devices not seen in this run are still part of the state to persist.
        integrator = EnergyIntegrator(configuration: EnergyConfiguration(), seed: seed)
        #expect(integrator.state().devices["old"]?.joules == 7200)
    }

    @Test func instantNotAfterThePreviousOneIsIgnored() {
        var integrator = makeIntegrator()
        integrator.integrate([sample(100)], at: at(10))
        #expect(integrator.integrate([sample(100)], at: at(10)).outOfOrder == 1)
        #expect(integrator.integrate([sample(100)], at: at(5)).outOfOrder == 1)
        #expect(integrator.total(for: "ups")?.joules == 0)
        // The chain continues from 10 s, not from the late reading at 5 s.
        integrator.integrate([sample(100)], at: at(16))
        #expect(integrator.total(for: "ups")?.joules == 600)
    }

    @Test func aLateReadingDoesNotRestartTheChainInThePast() {
        var integrator = makeIntegrator()
        for seconds in [0.0, 10, 5, 20] { integrator.integrate([sample(100)], at: at(seconds)) }
        // 100 W from 0 s to 20 s: 2,000 J, whatever arrived late.
        #expect(integrator.total(for: "ups")?.joules == 2000)
    }

    @Test func totalsNeverDecreaseOnRandomInput() {
        var generator = SplitMix64(seed: 42)
        var integrator = makeIntegrator(maxGap: .seconds(20))
        var previous: [String: Double] = [:]
        var time = 0.0
        for _ in 0..<5_000 {
            time += Double.random(in: 0...30, using: &generator)
            let samples = (0..<4).compactMap { index -> EnergySample? in
                if Bool.random(using: &generator) && Bool.random(using: &generator) { return nil }
                let watts: Double? = switch Int.random(in: 0..<10, using: &generator) {
                case 0: nil
                case 1: .nan
                case 2: -Double.random(in: 0...100, using: &generator)
                default: Double.random(in: 0...2_000, using: &generator)
                }
                return EnergySample(deviceID: "ups-\(index)", watts: watts, connected: Int.random(in: 0..<20, using: &generator) != 0)
            }
            integrator.integrate(samples, at: at(time))
            for (id, energy) in integrator.totals {
                #expect(energy.joules >= previous[id] ?? 0)
                #expect(energy.joules.isFinite)
                previous[id] = energy.joules
            }
        }
    }
}

@Suite(.ownThreads, .timeLimit(.minutes(3))) struct EnergyIntegratorLimitTests {
    @Test func overflowingReadingIsUnusableAndTotalsStayFinite() {
        // With no plausibility bound to stop it first, the overflow check does.
        var integrator = EnergyIntegrator<Instant>(configuration: EnergyConfiguration(maxPowerWatts: .greatestFiniteMagnitude))
        integrator.integrate([sample(100)], at: at(0))
        integrator.integrate([sample(100)], at: at(5))
        let summary = integrator.integrate([sample(.greatestFiniteMagnitude)], at: at(10))
        #expect(summary.unusable == 1)
        #expect(integrator.total(for: "ups")?.joules == 500)
    }
}
