package import FoundationEssentials
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// One measurement of a battery: a discharge the exporter watched from its first to its last
/// on-battery reading (an outage, mode 4, or a self-test, mode 5), with the charge it used, the
/// energy it delivered and what WinPower predicted at its start (docs/battery.md, "Measured
/// health").
///
/// Time and charge are both taken at readings, from the first on-battery reading to the last,
/// so they cover the same interval; the energy is the trapezoid of the readings' power over it.
package struct BatteryDischarge: Sendable, Equatable {
    /// What put the UPS on battery.
    package enum Kind: String, Sendable, CaseIterable {
        /// Mains failed (mode 4).
        case outage
        /// A battery self-test (mode 5).
        case selfTest = "self_test"
    }

    /// What put the UPS on battery.
    package var kind: Kind
    /// The wall-clock time of its last on-battery reading.
    package var end: Date
    /// Seconds from its first to its last on-battery reading (> 0).
    package var seconds: Double
    /// The charge at its first on-battery reading, percent.
    package var startCharge: Double
    /// Percentage points of charge used from the first reading to the last (> 0).
    package var chargeUsed: Double
    /// Energy delivered over those seconds, joules (0: power unknown).
    package var joules: Double
    /// The runtime WinPower reported at the first on-battery reading (`batRemainTime`, seconds).
    package var predictedRuntime: Double?
    /// The mean temperature WinPower reported during it (`upsTemperature`, °C).
    package var temperature: Double?

    /// A measurement as given.
    package init(kind: Kind, end: Date, seconds: Double, startCharge: Double, chargeUsed: Double, joules: Double,
                predictedRuntime: Double? = nil, temperature: Double? = nil) {
        self.kind = kind
        self.end = end
        self.seconds = seconds
        self.startCharge = startCharge
        self.chargeUsed = chargeUsed
        self.joules = joules
        self.predictedRuntime = predictedRuntime
        self.temperature = temperature
    }

    /// The mean power delivered, watts (0 when unknown).
    package var meanWatts: Double { seconds > 0 ? joules / seconds : 0 }
    /// The runtime the battery delivered per percent of charge, at this discharge's load, seconds.
    package var secondsPerPercent: Double { seconds / chargeUsed }
    /// The runtime per percent of charge WinPower predicted at the start (its runtime over its
    /// charge then), seconds; `nil` without a prediction or a charge.
    package var predictedSecondsPerPercent: Double? {
        guard let predictedRuntime, predictedRuntime > 0, startCharge > 0 else { return nil }
        return predictedRuntime / startCharge
    }
}

/// How measurements become a health ratio (`battery.*`; docs/battery.md).
package struct BatteryHealthRules: Sendable, Equatable {
    /// The ratio below which the battery's health is low (`battery.health_threshold`, 0.8: the
    /// 80 % of rated capacity at which IEEE 1188 advises replacing a VRLA battery).
    package var threshold = 0.8
    /// Comparable measurements needed for a ratio, the first one (the reference) included
    /// (`battery.min_measurements`).
    package var minMeasurements = 3
    /// The least charge a discharge must use to be a measurement, percentage points
    /// (`battery.min_charge_used`): WinPower reports whole percents, so 10 points bound the
    /// rounding to 10 %.
    package var minChargeUsed = 10.0
    /// The shortest discharge that is a measurement, seconds (`battery.min_duration`).
    package var minSeconds = 60.0
    /// Days without a self-test after which one is overdue (`battery.self_test_days`); 0: the
    /// UPS's own automatic test period plus two days (as the `UPSBatteryTestOverdue` alert), or ``defaultSelfTestDays`` when it reports none.
    package var selfTestDays = 0

    /// The self-test interval assumed of a UPS that reports no automatic test period: 31 days.
    package static let defaultSelfTestDays = 31

    /// Seconds without a self-test after which one is overdue, for a UPS set to test itself every
    /// `autoTestPeriodDays` days (`autoTestPeriod`; `nil` or 0: not reported).
    package func selfTestInterval(autoTestPeriodDays: Double?) -> Double {
        if selfTestDays > 0 { return Double(selfTestDays) * 86_400 }
        if let days = autoTestPeriodDays, days.isFinite, days > 0 { return (days + 2) * 86_400 }
        return Double(Self.defaultSelfTestDays) * 86_400
    }

    /// Peukert's exponent of a VRLA battery (1.1–1.3): a battery delivers less energy at a
    /// higher load, so a measurement's energy per percent is scaled by (its load / the
    /// reference's load)^(k − 1) before it is compared.
    package static let peukertExponent = 1.2
    /// The load range, as a factor of the reference's, within which that correction is trusted.
    package static let comparableLoad: ClosedRange<Double> = 0.5...2.0
    /// The largest temperature difference from the reference's, °C, within which a measurement
    /// is compared (a VRLA battery gives about 1 % less per °C colder).
    package static let comparableTemperature = 10.0

    /// The rules at their defaults.
    package init() {}
}

/// What a battery's measurements say: each measurement with its ratio to the reference (or why it
/// is not compared), and the health once there are enough.
package struct BatteryHealthVerdict: Sendable, Equatable {
    /// Why a measurement has no ratio, or that it is the reference.
    package enum Note: String, Sendable {
        /// The first comparable measurement: the others are compared with it.
        case reference
        /// Shorter than `battery.min_duration`.
        case tooShort = "too_short"
        /// Used less charge than `battery.min_charge_used`.
        case tooLittleCharge = "too_little_charge"
        /// WinPower reported no power during it.
        case noPower = "no_power"
        /// Taken before the battery's installation day.
        case beforeInstallation = "before_installation"
        /// Its load was outside half to twice the reference's.
        case otherLoad = "other_load"
        /// Its temperature was more than 10 °C from the reference's.
        case otherTemperature = "other_temperature"
    }

    /// One measurement as judged.
    package struct Point: Sendable, Equatable {
        /// The measurement.
        package var discharge: BatteryDischarge
        /// Its energy per percent of charge, load-corrected, over the reference's (1 for the
        /// reference); `nil` when it is not compared.
        package var ratio: Double?
        /// Why it has no ratio, or `reference`.
        package var note: Note?
    }

    /// Every measurement kept, oldest first.
    package var points: [Point]
    /// The comparable measurements, the reference included.
    package var measurements: Int
    /// The comparable measurements a ratio needs (``BatteryHealthRules/minMeasurements``).
    package var needed: Int
    /// The ratio of the latest comparable measurement, once there are ``needed``; `nil`: not
    /// enough data.
    package var health: Double?
    /// The ratio below which health is low.
    package var threshold: Double

    /// Whether the health is known and below the threshold.
    package var isLow: Bool { health.map { $0 < threshold } ?? false }

    /// Judges `discharges` (oldest first) by `rules`: the first comparable measurement taken on
    /// or after `installed` is the reference.
    package static func judge(_ discharges: [BatteryDischarge], installed: Date? = nil,
                             rules: BatteryHealthRules = BatteryHealthRules()) -> BatteryHealthVerdict {
        var points: [Point] = []
        points.reserveCapacity(discharges.count)
        var reference: BatteryDischarge?
        var measurements = 0
        var latest: Double?
        for discharge in discharges {
            var point = Point(discharge: discharge, ratio: nil, note: nil)
            if let installed, discharge.end < installed {
                point.note = .beforeInstallation
            } else if discharge.seconds < rules.minSeconds {
                point.note = .tooShort
            } else if discharge.chargeUsed < rules.minChargeUsed {
                point.note = .tooLittleCharge
            } else if !(discharge.joules > 0) || !discharge.meanWatts.isFinite {
                point.note = .noPower
            } else if let reference {
                let load = discharge.meanWatts / reference.meanWatts
                if !BatteryHealthRules.comparableLoad.contains(load) {
                    point.note = .otherLoad
                } else if let temperature = discharge.temperature, let base = reference.temperature,
                          abs(temperature - base) > BatteryHealthRules.comparableTemperature {
                    point.note = .otherTemperature
                } else {
                    let ratio = energyPerPercent(discharge) / energyPerPercent(reference)
                        * pow(load, BatteryHealthRules.peukertExponent - 1)
                    if ratio.isFinite {
                        point.ratio = ratio
                        measurements += 1
                        latest = ratio
                    } else {
                        point.note = .noPower
                    }
                }
            } else {
                reference = discharge
                point.ratio = 1
                point.note = .reference
                measurements = 1
            }
            points.append(point)
        }
        let health = measurements >= rules.minMeasurements ? latest : nil
        return BatteryHealthVerdict(points: points, measurements: measurements, needed: rules.minMeasurements,
                                    health: health, threshold: rules.threshold)
    }

    private static func energyPerPercent(_ discharge: BatteryDischarge) -> Double {
        discharge.joules / discharge.chargeUsed
    }
}

/// One reading as a battery's measurement takes it: the mode, charge, power, temperature and
/// runtime WinPower reported, and when (wall clock).
package struct BatteryReading: Sendable, Equatable {
    /// The raw mode code (4 battery, 5 battery test); `nil` while disconnected.
    package var mode: Int?
    /// `batCapacity`, percent.
    package var charge: Double?
    /// `loadTotalWatt`.
    package var watts: Double?
    /// `upsTemperature`, °C.
    package var temperature: Double?
    /// `batRemainTime`, seconds.
    package var runtime: Double?
    /// When it was read.
    package var time: Date

    /// A reading as given.
    package init(mode: Int?, charge: Double?, watts: Double?, temperature: Double? = nil, runtime: Double? = nil, time: Date) {
        self.mode = mode
        self.charge = charge
        self.watts = watts
        self.temperature = temperature
        self.runtime = runtime
        self.time = time
    }
}

/// A discharge being watched: from its first on-battery reading to the latest.
///
/// Fed every reading of the device (``observe(_:into:maxGap:)``); a reading that ends it (back on
/// line, another kind of discharge, disconnected, no charge reported, or after more than the
/// longest gap) hands back what was watched until then, which may then be a measurement.
package struct DischargeEpisode: Sendable, Equatable {
    package var kind: BatteryDischarge.Kind
    package var first: Date
    package var last: Date
    package var startCharge: Double
    package var lastCharge: Double
    package var joules = 0.0
    /// The power at the latest reading; `nil` when unknown (the energy of the interval after it
    /// is then not known: the whole discharge has no energy).
    package var lastWatts: Double?
    /// Whether every interval's power was known.
    package var powerKnown: Bool
    package var predictedRuntime: Double?
    package var temperatureSum = 0.0
    package var temperatureCount = 0

    /// A discharge watched from `first` on.
    package init(kind: BatteryDischarge.Kind, first: Date, last: Date, startCharge: Double, lastCharge: Double,
                joules: Double = 0, lastWatts: Double?, powerKnown: Bool, predictedRuntime: Double?,
                temperatureSum: Double = 0, temperatureCount: Int = 0) {
        self.kind = kind
        self.first = first
        self.last = last
        self.startCharge = startCharge
        self.lastCharge = lastCharge
        self.joules = joules
        self.lastWatts = lastWatts
        self.powerKnown = powerKnown
        self.predictedRuntime = predictedRuntime
        self.temperatureSum = temperatureSum
        self.temperatureCount = temperatureCount
    }

    /// What was watched, when it used charge over time (a measurement to judge), else `nil`.
    package var discharge: BatteryDischarge? {
        let seconds = last.timeIntervalSince(first)
        let used = startCharge - lastCharge
        guard seconds > 0, used > 0 else { return nil }
        return BatteryDischarge(kind: kind, end: last, seconds: seconds, startCharge: startCharge, chargeUsed: used,
                                joules: powerKnown ? joules : 0, predictedRuntime: predictedRuntime,
                                temperature: temperatureCount > 0 ? temperatureSum / Double(temperatureCount) : nil)
    }

    /// Applies `reading` to the discharge being watched (`episode`, `nil` for none).
    ///
    /// - Returns: the discharge it ended, if any (``discharge`` says whether it is a measurement).
    package static func observe(_ reading: BatteryReading, into episode: inout DischargeEpisode?,
                               maxGap: Double) -> DischargeEpisode? {
        let kind: BatteryDischarge.Kind? = switch reading.mode {
        case 4: .outage
        case 5: .selfTest
        default: nil
        }
        guard let kind, let charge = reading.charge, charge.isFinite else {
            defer { episode = nil }
            return episode
        }
        if var current = episode {
            let elapsed = reading.time.timeIntervalSince(current.last)
            guard elapsed > 0 else { return nil }  // an older or repeated reading
            if current.kind == kind, elapsed <= maxGap {
                let watts = reading.watts.flatMap { $0.isFinite && $0 >= 0 ? $0 : nil }
                if let before = current.lastWatts, let watts, (current.joules + elapsed * (before + watts) / 2).isFinite {
                    current.joules += elapsed * (before + watts) / 2
                } else {
                    current.powerKnown = false
                }
                current.last = reading.time
                current.lastCharge = charge
                current.lastWatts = watts
                current.addTemperature(reading.temperature)
                episode = current
                return nil
            }
        }
        let ended = episode
        var started = DischargeEpisode(kind: kind, first: reading.time, last: reading.time, startCharge: charge, lastCharge: charge,
                                       lastWatts: reading.watts.flatMap { $0.isFinite && $0 >= 0 ? $0 : nil }, powerKnown: true,
                                       predictedRuntime: reading.runtime.flatMap { $0.isFinite && $0 > 0 ? $0 : nil })
        started.addTemperature(reading.temperature)
        episode = started
        return ended
    }

    private mutating func addTemperature(_ value: Double?) {
        guard let value, value.isFinite, (-50...100).contains(value) else { return }
        temperatureSum += value
        temperatureCount += 1
    }
}

extension BatteryHealthVerdict {
    /// Whether a self-test is overdue at `now`: the last one started more than `interval`
    /// seconds ago, or, with none seen, the UPS has been watched (and its battery installed)
    /// for longer than that.
    ///
    /// - Parameters:
    ///   - lastTest: the last self-test's start (the outage ledger's), if any.
    ///   - watchedSince: when the exporter first saw the UPS (kept in the data directory).
    ///   - installed: the battery's installation day, if configured.
    ///   - interval: seconds without a self-test after which one is overdue
    ///     (``BatteryHealthRules/selfTestInterval(autoTestPeriodDays:)``).
    ///   - now: the wall-clock time it is judged at.
    package static func testOverdue(lastTest: Date?, watchedSince: Date, installed: Date?, interval: Double, now: Date) -> Bool {
        guard interval > 0 else { return false }
        var since = lastTest ?? watchedSince
        if lastTest == nil, let installed, installed > since { since = installed }
        return now.timeIntervalSince(since) > interval
    }
}
