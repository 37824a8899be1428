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

/// A small deterministic generator (SplitMix64) so random test inputs are reproducible.
struct SeededGenerator: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
