#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A deterministic, smooth active-power curve for one simulated UPS, with an exact integral.
///
/// `watts(at:)` is a constant base load plus two sine waves (a slow "daily" swing and a faster
/// ripple). Because the integral has a closed form, tests can compare integrated energy with
/// the exact value between any two instants.
///
/// ```swift
/// let curve = PowerCurve(deviceIndex: 2)
/// let w = curve.watts(at: 3600)                    // W at t = 1 h
/// let j = curve.energyJoules(from: 0, to: 86_400)  // exact J over a day
/// ```
public struct PowerCurve: Sendable, Equatable {
    /// Mean load in watts.
    public var base: Double
    /// Amplitude of the slow swing, in watts.
    public var slowAmplitude: Double
    /// Period of the slow swing, in seconds.
    public var slowPeriod: Double
    /// Amplitude of the fast ripple, in watts.
    public var fastAmplitude: Double
    /// Period of the fast ripple, in seconds.
    public var fastPeriod: Double
    /// Phase offset in radians applied to both waves.
    public var phase: Double

    /// Creates a curve from its base load, both waves' amplitudes and periods, and their phase.
    public init(base: Double, slowAmplitude: Double, slowPeriod: Double,
                fastAmplitude: Double, fastPeriod: Double, phase: Double) {
        self.base = base
        self.slowAmplitude = slowAmplitude
        self.slowPeriod = slowPeriod
        self.fastAmplitude = fastAmplitude
        self.fastPeriod = fastPeriod
        self.phase = phase
    }

    /// The curve of the simulated device number `deviceIndex` (0-based): stable across runs,
    /// different per device, always positive (base > sum of amplitudes).
    public init(deviceIndex: Int) {
        let i = Double(deviceIndex % 97)
        base = 150 + 37 * i.truncatingRemainder(dividingBy: 13)
        slowAmplitude = base * 0.3
        slowPeriod = 86_400 / (1 + i.truncatingRemainder(dividingBy: 3))
        fastAmplitude = base * 0.1
        fastPeriod = 600 + 60 * i.truncatingRemainder(dividingBy: 7)
        phase = 0.7 * i
    }

    /// Active power in watts at `t` seconds since the simulation's epoch.
    public func watts(at t: Double) -> Double {
        base + slowAmplitude * sin(2 * .pi * t / slowPeriod + phase)
            + fastAmplitude * sin(2 * .pi * t / fastPeriod + phase)
    }

    /// The exact energy in joules between `t0` and `t1` seconds (∫ watts dt).
    public func energyJoules(from t0: Double, to t1: Double) -> Double {
        antiderivative(t1) - antiderivative(t0)
    }

    private func antiderivative(_ t: Double) -> Double {
        base * t
            - slowAmplitude * slowPeriod / (2 * .pi) * cos(2 * .pi * t / slowPeriod + phase)
            - fastAmplitude * fastPeriod / (2 * .pi) * cos(2 * .pi * t / fastPeriod + phase)
    }
}
