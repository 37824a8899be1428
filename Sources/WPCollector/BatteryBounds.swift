package import WPClient

/// The physical bounds of the battery readings a shutdown can follow from (NUT's `LB`, the
/// UPS-MIB's `batteryLow`, the shipped alerts). A reading outside them (or not finite) is
/// refused where it arrives: the collector treats it as missing, so `/metrics`, the NUT server
/// and the SNMP agent never see it, and counts it in
/// `winpower_exporter_readings_refused_total{reading}` (docs/metrics.md). One garbage value
/// (`batCapacity` of `-1e308`) thus cannot make a UPS on battery "low" and power hosts off.
package enum BatteryBounds {
    /// A battery reading that can be refused: the label value of the counter.
    package enum Reading: String, CaseIterable, Sendable {
        /// `batCapacity`, percent.
        case charge = "battery_charge"
        /// `batRemainTime`, seconds.
        case runtime = "battery_runtime"
        /// `batVoltP`, volts.
        case voltage = "battery_voltage"
    }

    /// Battery charge, percent.
    package static let charge: ClosedRange<Double> = 0...100
    /// Battery runtime, seconds: at most 7 days (a UPS with extended battery packs reaches hours).
    package static let runtime: ClosedRange<Double> = 0...604_800
    /// Battery voltage, volts DC: at most 2,000 V (the largest battery strings stay under 1,000 V).
    package static let voltage: ClosedRange<Double> = 0...2_000

    /// The bounds of `reading`.
    package static func bounds(_ reading: Reading) -> ClosedRange<Double> {
        switch reading {
        case .charge: charge
        case .runtime: runtime
        case .voltage: voltage
        }
    }

    /// One reading removed.
    package struct Refusal: Sendable, Equatable {
        package var deviceID: String
        package var reading: Reading
        package var value: Double
    }

    /// Removes every battery reading of `devices` outside its bounds.
    ///
    /// - Returns: the readings removed.
    package static func apply(to devices: inout [Device]) -> [Refusal] {
        var refused: [Refusal] = []
        for index in devices.indices {
            let id = devices[index].id
            func check(_ value: inout Double?, _ reading: Reading) {
                guard let current = value, !(current.isFinite && bounds(reading).contains(current)) else { return }
                value = nil
                refused.append(Refusal(deviceID: id, reading: reading, value: current))
            }
            check(&devices[index].realtime.batCapacity, .charge)
            check(&devices[index].realtime.batRemainTime, .runtime)
            check(&devices[index].realtime.batVoltP, .voltage)
        }
        return refused
    }
}
