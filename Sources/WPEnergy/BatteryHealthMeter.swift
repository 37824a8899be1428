package import FoundationEssentials
package import WPStorage
import Synchronization

/// Each UPS's battery measurements (``BatteryDischarge``), taken from its readings at each
/// publication, kept in the data directory and judged into a health ratio
/// (``BatteryHealthVerdict``; docs/battery.md, "Measured health").
///
/// Given the store's ``StateSections``, the measurements (at most ``keptPerDevice`` per UPS, the
/// oldest dropped first), the discharge being watched and when each UPS was first seen are kept
/// in section ``section``: a restart in the middle of an outage goes on measuring it, when the
/// first reading after the restart comes within `energy.max_gap` of the last one before.
package final class BatteryHealthMeter: Sendable {
    /// The section of the data directory holding the measurements: records
    /// `["m", key, kind, end (Unix s), seconds, start charge, charge used, joules, predicted runtime or "", temperature or ""]`,
    /// `["o", key, kind, first, last, start charge, last charge, joules, last watts or "", power known (0/1), predicted or "", temperature sum, temperature count]`
    /// and `["s", key, first seen (Unix s)]`.
    package static var section: String { "battery-health" }
    /// Measurements kept per UPS: two years of monthly self-tests.
    package static let keptPerDevice = 24

    /// What the meter took from the data directory when it was made.
    package struct Restoration: Sendable, Equatable {
        /// UPSs whose measurements or first-seen time were continued.
        package var devices = 0
        /// Records that could not be read, each as `battery-health record N: why` (dropped).
        package var unreadable: [String] = []

        package init() {}
    }

    private struct Device {
        var watchedSince: Date
        var episode: DischargeEpisode?
        var discharges: [BatteryDischarge] = []
    }

    private let state: Mutex<[String: Device]>
    private let sections: StateSections?
    /// The rules the measurements are judged by.
    package let rules: BatteryHealthRules
    /// The longest interval between two readings of one discharge, seconds (`energy.max_gap`).
    package let maxGap: Double
    /// What was taken from the data directory.
    package let restoration: Restoration

    /// - Parameters:
    ///   - rules: how measurements are judged.
    ///   - maxGap: the longest interval between two readings of one discharge (seconds).
    ///   - sections: the store's sections, to continue the kept measurements and keep them;
    ///     `nil` keeps them in memory.
    package init(rules: BatteryHealthRules, maxGap: Double, sections: StateSections? = nil) {
        var devices: [String: Device] = [:]
        var restoration = Restoration()
        if let sections {
            Self.restore(sections.records(Self.section), into: &devices, restoration: &restoration)
        }
        state = Mutex(devices)
        self.sections = sections
        self.rules = rules
        self.maxGap = maxGap
        self.restoration = restoration
    }

    /// Takes one reading of each UPS (by device key) at `now`: a UPS seen for the first time is
    /// watched from `now`; a discharge that ends and used charge over time is kept as a
    /// measurement. Past ``keptPerDevice``, the oldest one too small to compare goes first, then
    /// the oldest other than the reference (the first comparable one on or after the battery's
    /// installation day, `installed` by device key): the ratio keeps its reference.
    ///
    /// - Returns: the measurements taken, by device key.
    @discardableResult
    package func record(_ readings: [String: BatteryReading], installed: [String: Date] = [:],
                        at now: Date) -> [String: BatteryDischarge] {
        let (maxGap, rules) = (self.maxGap, self.rules)
        let (taken, changed) = state.withLock { devices in
            var taken: [String: BatteryDischarge] = [:]
            var changed = false
            for (key, reading) in readings {
                var device = devices[key] ?? Device(watchedSince: now)
                if devices[key] == nil { changed = true }
                let before = device.episode
                if let ended = DischargeEpisode.observe(reading, into: &device.episode, maxGap: maxGap),
                   let discharge = ended.discharge {
                    device.discharges.append(discharge)
                    while device.discharges.count > Self.keptPerDevice {
                        device.discharges.remove(at: Self.leastUseful(device.discharges, installed: installed[key], rules: rules))
                    }
                    taken[key] = discharge
                }
                if device.episode != before { changed = true }
                devices[key] = device
            }
            return (taken, changed)
        }
        if changed { keep() }
        return taken
    }

    /// The index of the measurement to drop first from `discharges` (oldest first): the oldest
    /// that can never be compared under `rules`, else the oldest but the reference.
    static func leastUseful(_ discharges: [BatteryDischarge], installed: Date?, rules: BatteryHealthRules) -> Int {
        if let small = discharges.firstIndex(where: { $0.seconds < rules.minSeconds || $0.chargeUsed < rules.minChargeUsed }) {
            return small
        }
        let verdict = BatteryHealthVerdict.judge(discharges, installed: installed, rules: rules)
        let reference = verdict.points.firstIndex { $0.note == .reference }
        return reference == 0 ? 1 : 0
    }

    /// The measurements kept of a UPS, oldest first.
    package func discharges(_ key: String) -> [BatteryDischarge] {
        state.withLock { $0[key]?.discharges ?? [] }
    }

    /// When the exporter first saw a UPS (kept across restarts); `nil` for one never seen.
    package func watchedSince(_ key: String) -> Date? {
        state.withLock { $0[key]?.watchedSince }
    }

    /// A UPS's verdict under ``rules`` (its battery installed on `installed`); `nil` for a UPS
    /// with no measurement kept.
    package func verdict(_ key: String, installed: Date?) -> BatteryHealthVerdict? {
        let discharges = self.discharges(key)
        guard !discharges.isEmpty else { return nil }
        return BatteryHealthVerdict.judge(discharges, installed: installed, rules: rules)
    }

    /// Every UPS's measurements, by device key.
    package var all: [String: [BatteryDischarge]] {
        state.withLock { devices in devices.compactMapValues { $0.discharges.isEmpty ? nil : $0.discharges } }
    }

    /// Hands the records to the sections for the next save (in memory: never waits for I/O).
    private func keep() {
        guard let sections else { return }
        let devices = state.withLock { $0 }
        var records: [[String]] = []
        for key in devices.keys.sorted() {
            guard let device = devices[key] else { continue }
            records.append(["s", key, String(device.watchedSince.timeIntervalSince1970)])
            for discharge in device.discharges {
                records.append(["m", key, discharge.kind.rawValue, String(discharge.end.timeIntervalSince1970),
                                String(discharge.seconds), String(discharge.startCharge), String(discharge.chargeUsed),
                                String(discharge.joules), discharge.predictedRuntime.map { String($0) } ?? "",
                                discharge.temperature.map { String($0) } ?? ""])
            }
            if let episode = device.episode {
                records.append(["o", key, episode.kind.rawValue, String(episode.first.timeIntervalSince1970),
                                String(episode.last.timeIntervalSince1970), String(episode.startCharge),
                                String(episode.lastCharge), String(episode.joules), episode.lastWatts.map { String($0) } ?? "",
                                episode.powerKnown ? "1" : "0", episode.predictedRuntime.map { String($0) } ?? "",
                                String(episode.temperatureSum), String(episode.temperatureCount)])
            }
        }
        sections.replace(Self.section, with: records)
    }

    /// Reads the kept records into `devices`; a bad record is skipped and named.
    private static func restore(_ records: [[String]], into devices: inout [String: Device],
                                restoration: inout Restoration) {
        for (index, record) in records.enumerated() {
            let problem = "\(section) record \(index + 1)"
            guard record.count >= 3, !record[1].isEmpty else {
                restoration.unreadable.append("\(problem): expected a type, a key and values")
                continue
            }
            let key = record[1]
            let numbers = record.dropFirst(3).map { $0.isEmpty ? nil : Double($0).flatMap { $0.isFinite ? $0 : nil } }
            func number(_ position: Int) -> Double? { position - 3 < numbers.count ? numbers[position - 3] : nil }
            func date(_ position: Int) -> Date? {
                number(position).flatMap { abs($0) < 1e11 ? Date(timeIntervalSince1970: $0) : nil }
            }
            switch record[0] {
            case "s":
                guard record.count == 3, let since = Double(record[2]), since.isFinite, abs(since) < 1e11 else {
                    restoration.unreadable.append("\(problem): expected [s, key, first seen (Unix seconds)]")
                    continue
                }
                devices[key, default: Device(watchedSince: Date(timeIntervalSince1970: since))].watchedSince =
                    Date(timeIntervalSince1970: since)
                restoration.devices += 1
            case "m":
                guard record.count == 10, let kind = BatteryDischarge.Kind(rawValue: record[2]), let end = date(3),
                      let seconds = number(4), seconds > 0, seconds < 1e9, let start = number(5), (0...100).contains(start),
                      let used = number(6), used > 0, used <= 100, let joules = number(7), joules >= 0, joules < 1e15,
                      record[8].isEmpty || number(8) != nil, record[9].isEmpty || number(9) != nil else {
                    restoration.unreadable.append("\(problem): expected [m, key, kind, end, seconds (0 to 1e9), start charge (0 to 100), charge used (0 to 100), joules (0 to 1e15), predicted runtime, temperature]")
                    continue
                }
                let discharge = BatteryDischarge(kind: kind, end: end, seconds: seconds, startCharge: start, chargeUsed: used,
                                                 joules: joules, predictedRuntime: number(8), temperature: number(9))
                devices[key, default: Device(watchedSince: end)].discharges.append(discharge)
            case "o":
                guard record.count == 13, let kind = BatteryDischarge.Kind(rawValue: record[2]), let first = date(3),
                      let last = date(4), last >= first, last.timeIntervalSince(first) < 1e9,
                      let start = number(5), (0...100).contains(start), let charge = number(6), (0...100).contains(charge),
                      let joules = number(7), joules >= 0, joules < 1e15, record[8].isEmpty || number(8) != nil,
                      record[9] == "0" || record[9] == "1", record[10].isEmpty || number(10) != nil,
                      let sum = number(11), let count = Int(record[12]), count >= 0 else {
                    restoration.unreadable.append("\(problem): expected [o, key, kind, first, last, start charge, last charge, joules, last watts, 0 or 1, predicted runtime, temperature sum, count]")
                    continue
                }
                devices[key, default: Device(watchedSince: first)].episode =
                    DischargeEpisode(kind: kind, first: first, last: last, startCharge: start, lastCharge: charge, joules: joules,
                                     lastWatts: number(8), powerKnown: record[9] == "1", predictedRuntime: number(10),
                                     temperatureSum: sum, temperatureCount: count)
            default:
                restoration.unreadable.append("\(problem): unknown type '\(record[0])' (s, m or o)")
            }
        }
        for key in devices.keys {
            devices[key]?.discharges.sort { $0.end < $1.end }
            if let count = devices[key]?.discharges.count, count > keptPerDevice {
                devices[key]?.discharges.removeFirst(count - keptPerDevice)
            }
        }
    }
}
