import FoundationEssentials
package import WPStorage

/// What the status pages keep of each UPS in the data directory (``StateSections``), so a
/// restart neither empties the outage list nor starts the energy of today and this month again:
///
/// - section `status-energy`: one record per UPS, `[key, day, total at its start (J), month,
///   total at its start (J), discharge when the ongoing outage began (J)]` (empty fields for
///   what is unknown);
/// - section `status-outages`: one record per outage kept, `[key, start, end, duration (s),
///   lowest battery (%), energy on battery (Wh), ongoing (1 or 0)]`, times as Unix seconds.
///
/// The 24-hour charts are not kept: they start again with the process. Written with the next
/// save of the state file; a record that cannot be read, or holds a number out of range (an
/// energy, time or duration outside 0 to 10¹⁸, a charge outside 0–100 %), is named by ``load()``
/// and dropped.
package struct StatusMemory: Sendable {
    /// The energy baselines' section.
    package static var energySection: String { "status-energy" }
    /// The outages' section.
    package static var outageSection: String { "status-outages" }

    /// The energy total (J) when a local day (`key` `YYYY-MM-DD`) or month (`YYYY-MM`) began,
    /// or when the page first saw the UPS in it.
    package struct Baseline: Sendable, Equatable {
        package var key: String
        package var joules: Double

        package init(_ key: String, _ joules: Double) {
            (self.key, self.joules) = (key, joules)
        }
    }

    /// What is kept of one UPS.
    package struct UPS: Sendable, Equatable {
        package var day: Baseline?
        package var month: Baseline?
        package var dischargeAtStart: Double?
        package var outages: [OutageRecord] = []

        package init(day: Baseline? = nil, month: Baseline? = nil, dischargeAtStart: Double? = nil,
                     outages: [OutageRecord] = []) {
            (self.day, self.month, self.dischargeAtStart, self.outages) = (day, month, dischargeAtStart, outages)
        }
    }

    private let sections: StateSections

    package init(_ sections: StateSections) {
        self.sections = sections
    }

    /// What the previous run kept, by UPS key, and the records that could not be read (each as
    /// `section record N: why`; they are dropped, the others kept).
    package func load() -> (kept: [String: UPS], unreadable: [String]) {
        var kept: [String: UPS] = [:]
        var unreadable: [String] = []
        for (index, record) in sections.records(Self.energySection).enumerated() {
            guard record.count == 6, !record[0].isEmpty, let day = Self.optional(record[2]), let month = Self.optional(record[4]),
                  let discharge = Self.optional(record[5]), [day, month, discharge].allSatisfy({ $0.map(StoredDeviceEnergy.isPlausible) ?? true }) else {
                unreadable.append("\(Self.energySection) record \(index + 1): expected [key, day, total (J), month, total (J), discharge (J)], each number from 0 to 1e18")
                continue
            }
            var ups = UPS(dischargeAtStart: discharge)
            if !record[1].isEmpty, let day { ups.day = Baseline(record[1], day) }
            if !record[3].isEmpty, let month { ups.month = Baseline(record[3], month) }
            kept[record[0]] = ups
        }
        for (index, record) in sections.records(Self.outageSection).enumerated() {
            guard record.count == 7, !record[0].isEmpty, let start = Self.optional(record[1]) ?? nil,
                  let end = Self.optional(record[2]), let duration = Self.optional(record[3]),
                  let battery = Self.optional(record[4]), let energy = Self.optional(record[5]),
                  record[6] == "1" || record[6] == "0", [end, duration, energy].allSatisfy({ $0.map(StoredDeviceEnergy.isPlausible) ?? true }),
                  StoredDeviceEnergy.isPlausible(start), battery.map({ (0...100).contains($0) }) ?? true else {
                unreadable.append("\(Self.outageSection) record \(index + 1): expected [key, start, end, duration (s), lowest battery (%), energy (Wh), 1 or 0], times and amounts from 0 to 1e18, the battery 0 to 100")
                continue
            }
            let outage = OutageRecord(start: Date(timeIntervalSince1970: start), end: end.map(Date.init(timeIntervalSince1970:)),
                                      durationSeconds: duration, lowestBatteryPercent: battery,
                                      energyOnBatteryWattHours: energy, ongoing: record[6] == "1")
            kept[record[0], default: UPS()].outages.append(outage)
        }
        return (kept, unreadable)
    }

    /// Keeps `kept` for the next save (in memory: never waits for I/O).
    package func save(_ kept: [String: UPS]) {
        var energy: [[String]] = []
        var outages: [[String]] = []
        energy.reserveCapacity(kept.count)
        for key in kept.keys.sorted() {
            guard let ups = kept[key], ups != UPS() else { continue }
            energy.append([key, ups.day?.key ?? "", Self.field(ups.day?.joules), ups.month?.key ?? "",
                           Self.field(ups.month?.joules), Self.field(ups.dischargeAtStart)])
            for outage in ups.outages {
                outages.append([key, Self.field(outage.start.timeIntervalSince1970), Self.field(outage.end?.timeIntervalSince1970),
                                Self.field(outage.durationSeconds), Self.field(outage.lowestBatteryPercent),
                                Self.field(outage.energyOnBatteryWattHours), outage.ongoing ? "1" : "0"])
            }
        }
        sections.replace(Self.energySection, with: energy)
        sections.replace(Self.outageSection, with: outages)
    }

    /// A number as a field (exact: it reads back as the same `Double`), empty for none.
    private static func field(_ value: Double?) -> String {
        guard let value, value.isFinite else { return "" }
        return String(value)
    }

    /// A field as a number: `.some(nil)` when empty, `nil` when it is not a finite number.
    private static func optional(_ field: String) -> Double?? {
        if field.isEmpty { return .some(nil) }
        guard let value = Double(field), value.isFinite else { return nil }
        return .some(value)
    }
}
