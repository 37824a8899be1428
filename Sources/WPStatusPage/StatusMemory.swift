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
/// save of the state file; a record that cannot be read is skipped.
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

    /// What the previous run kept, by UPS key.
    package func load() -> [String: UPS] {
        var kept: [String: UPS] = [:]
        for record in sections.records(Self.energySection) where record.count == 6 && !record[0].isEmpty {
            var ups = UPS()
            if !record[1].isEmpty, let joules = Self.number(record[2]) { ups.day = Baseline(record[1], joules) }
            if !record[3].isEmpty, let joules = Self.number(record[4]) { ups.month = Baseline(record[3], joules) }
            ups.dischargeAtStart = Self.number(record[5])
            kept[record[0]] = ups
        }
        for record in sections.records(Self.outageSection) where record.count == 7 && !record[0].isEmpty {
            guard let start = Self.number(record[1]), record[6] == "1" || record[6] == "0" else { continue }
            let outage = OutageRecord(start: Date(timeIntervalSince1970: start), end: Self.number(record[2]).map(Date.init(timeIntervalSince1970:)),
                                      durationSeconds: Self.number(record[3]), lowestBatteryPercent: Self.number(record[4]),
                                      energyOnBatteryWattHours: Self.number(record[5]), ongoing: record[6] == "1")
            kept[record[0], default: UPS()].outages.append(outage)
        }
        return kept
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

    /// A field as a finite number, `nil` when empty or not one.
    private static func number(_ field: String) -> Double? {
        guard let value = Double(field), value.isFinite else { return nil }
        return value
    }
}
