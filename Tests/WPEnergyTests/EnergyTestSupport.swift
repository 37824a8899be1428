import WPEnergy
import WPRuntime
import WPTestSupport

typealias Instant = ManualClock.Instant

/// The instant `seconds` after the manual clock's origin.
func at(_ seconds: Double) -> Instant { Instant(offset: .seconds(seconds)) }

/// An integrator on the manual clock's time line with the default 60 s max gap.
func makeIntegrator(maxGap: Duration = .seconds(60)) -> EnergyIntegrator<Instant> {
    EnergyIntegrator(configuration: EnergyConfiguration(maxGap: maxGap))
}

func sample(_ watts: Double?, id: String = "ups", connected: Bool = true) -> EnergySample {
    EnergySample(deviceID: id, watts: watts, connected: connected)
}

