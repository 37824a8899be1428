import Testing
import WPTestThreads
import WPEnergy
import WPLogging
import WPStorage
import WPRuntime
import WPTestSupport

/// One glitched reading (`loadTotalWatt: "1e12"`) must not inflate a counter that can never
/// go down: readings above the plausibility bound are refused, counted and logged once.
@Suite(.ownThreads, .timeLimit(.minutes(3))) struct PlausibilityTests {
    private func rated(_ watts: Double?, ratingVa: Double? = 3000, id: String = "ups") -> EnergySample {
        EnergySample(deviceID: id, watts: watts, ratingVa: ratingVa)
    }

    @Test func defaultBoundIsTwiceTheRatingElseTheCeiling() {
        #expect(PowerBound.bound(ratingVa: 3000) == 6000)
        #expect(PowerBound.bound(ratingVa: nil) == PowerBound.ceilingWatts)
        #expect(PowerBound.bound(ratingVa: 0) == PowerBound.ceilingWatts)
        #expect(PowerBound.bound(ratingVa: -1) == PowerBound.ceilingWatts)
        #expect(PowerBound.bound(ratingVa: .nan) == PowerBound.ceilingWatts)
        #expect(PowerBound.bound(ratingVa: 1e300) == PowerBound.ceilingWatts)
        #expect(EnergyConfiguration(maxPowerWatts: 500).maxWatts(ratingVa: 3000) == 500)
    }

    @Test func glitchIsNotIntegratedAndTheChainBridgesIt() {
        var integrator = makeIntegrator()
        integrator.integrate([rated(100)], at: at(0))
        let summary = integrator.integrate([rated(1e12)], at: at(5))
        #expect(summary.implausible.map(\.deviceID) == ["ups"])
        #expect(summary.implausible.map(\.watts) == [1e12])
        #expect(summary.implausible.map(\.maxWatts) == [6000])
        #expect(summary.integrated == 0)
        #expect(integrator.total(for: "ups")?.joules == 0)
        // The next plausible reading integrates from the last plausible one: nothing lost.
        integrator.integrate([rated(100)], at: at(10))
        #expect(integrator.total(for: "ups")?.joules == 1000)
        #expect(integrator.rejectedSamples == ["ups": 1])
    }

    @Test func readingAtTheBoundIsAccepted() {
        var integrator = makeIntegrator()
        integrator.integrate([rated(6000)], at: at(0))
        integrator.integrate([rated(6000)], at: at(1))
        #expect(integrator.total(for: "ups")?.joules == 6000)
        #expect(integrator.rejectedSamples.isEmpty)
    }

    @Test func configuredBoundOverridesTheRating() {
        var integrator = EnergyIntegrator<Instant>(configuration: EnergyConfiguration(maxPowerWatts: 200))
        integrator.integrate([rated(150)], at: at(0))
        integrator.integrate([rated(250)], at: at(1))
        integrator.integrate([rated(150)], at: at(2))
        #expect(integrator.total(for: "ups")?.joules == 300)
        #expect(integrator.rejectedSamples == ["ups": 1])
    }

    @Test func negativeNaNAndInfiniteStayUnusableNotImplausible() {
        var integrator = makeIntegrator()
        let summary = integrator.integrate([rated(-5), rated(.nan, id: "b"), rated(.infinity, id: "c")], at: at(0))
        #expect(summary.unusable == 3)
        #expect(summary.implausible.isEmpty)
        #expect(integrator.rejectedSamples.isEmpty)
    }

    @Test func meterCountsEveryGlitchLogsOncePerDeviceAndKeepsTotals() throws {
        let sink = InMemoryLogSink()
        let clock = ManualClock()
        let store = InMemoryEnergyStore(initial: EnergyState(devices: ["ups": StoredDeviceEnergy(joules: 7200)]))
        let meter = try EnergyMeter.open(store: store, clock: clock, logger: sink.logger())
        meter.record([rated(100)])
        for _ in 0..<3 {
            clock.advance(by: .seconds(5))
            meter.record([rated(1e12), EnergySample(deviceID: "other", watts: 5e6)])
        }
        clock.advance(by: .seconds(5))
        meter.record([rated(100)])
        #expect(meter.totals["ups"]?.joules == 9200)
        #expect(meter.rejectedSamples == ["ups": 3, "other": 3])
        #expect(meter.status.rejectedSamples == 6)
        let warnings = sink.records.filter { $0.message.hasPrefix("implausible power reading") }
        #expect(warnings.count == 2)
        try meter.waitForSaves()
        #expect(store.savedStates.last?.devices["ups"]?.joules == 9200)
    }
}
