package import WPTime
package import FoundationEssentials
import Synchronization
import WPRuntime
package import WPStorage

/// What energy costs: a price per kWh for each tariff period (`flat`, `peak`, `valley`) by the
/// time of day in a time zone, in a currency. The exporter maps `energy.tariffs.*` onto it.
package struct TariffSchedule: Sendable, Equatable {
    /// A stretch of the day in minutes after local midnight, `end` exclusive; past midnight
    /// when `end` < `start`.
    package struct Window: Sendable, Equatable {
        package var period: String
        package var price: Double
        package var start: Int
        package var end: Int

        package init(period: String, price: Double, start: Int, end: Int) {
            (self.period, self.price, self.start, self.end) = (period, price, start, end)
        }

        func contains(_ minute: Int) -> Bool {
            start <= end ? (start <= minute && minute < end) : (minute >= start || minute < end)
        }
    }

    package var currency: String
    /// The time zone of the windows.
    package var timeZone: TimeZoneRules
    /// The price outside every window.
    package var flatPrice: Double
    /// The first window containing a minute sets its period.
    package var windows: [Window]

    package init(currency: String, timeZone: TimeZoneRules, flatPrice: Double, windows: [Window] = []) {
        self.currency = currency
        self.timeZone = timeZone
        self.flatPrice = flatPrice
        self.windows = windows
    }

    /// The period and price at `date`.
    package func tariff(at date: Date) -> (period: String, price: Double) {
        let utc = date.timeIntervalSince1970
        guard utc.isFinite, abs(utc) < 1e15 else { return ("flat", flatPrice) }
        let seconds = utc + Double(timeZone.offset(at: Int64(utc.rounded(.down))))
        let local = Int(seconds.rounded(.down))
        let minute = ((local / 60) % 1440 + 1440) % 1440
        if let window = windows.first(where: { $0.contains(minute) }) { return (window.period, window.price) }
        return ("flat", flatPrice)
    }

    /// Every period the schedule can count, `flat` first.
    package var periods: [String] {
        var names = ["flat"]
        for window in windows where !names.contains(window.period) { names.append(window.period) }
        return names
    }
}

/// Each device's energy cost per tariff period, integrated from the growth of its energy
/// total: the energy a device used between two readings is priced at the tariff in force at
/// the later one (so a period boundary is off by at most one collection interval).
///
/// Counting starts when the meter is first made (``startedAt``), from each device's total then:
/// energy used before is never priced. ``replace(_:)`` takes a new schedule from that moment on
/// (a reload): past costs keep the prices they were counted at.
///
/// Given the store's ``StateSections``, the costs are kept in the data directory with the
/// energy totals (sections ``section`` and ``startSection``, written with the next save): a
/// restart continues them, from the start time and each device's last total they were
/// counted to, so the energy used while the exporter was down is priced at the first reading
/// after it. Costs kept in another currency than the schedule's are not continued (the
/// counters start again, ``Restoration/discardedCurrency`` says so).
package final class EnergyCostMeter: Sendable {
    /// The section of the data directory holding the costs: one record per device,
    /// `[key, last total (J), period, amount, period, amount, …]`.
    package static var section: String { "energy-cost" }
    /// The section holding when counting started: one record, `[currency, Unix seconds]`.
    package static var startSection: String { "energy-cost-start" }

    /// What the meter took from the data directory when it was made.
    package struct Restoration: Sendable, Equatable {
        /// Devices whose costs were continued.
        package var devices = 0
        /// The currency of costs that were kept but not continued, because the schedule's differs.
        package var discardedCurrency: String?
        /// Records that could not be read, each as `section record N: why` (they are dropped).
        package var unreadable: [String] = []

        package init() {}
    }

    private struct State {
        var schedule: TariffSchedule
        /// The joules of each device at its last reading.
        var last: [String: Double] = [:]
        /// The cost by device key, then period.
        var costs: [String: [String: Double]] = [:]
    }

    private let state: Mutex<State>
    /// Where the costs are kept (`nil`: in memory only).
    private let sections: StateSections?
    /// When counting started (wall clock): when the meter was first made, or, with the costs
    /// continued from the data directory, when the first run started.
    package let startedAt: Date
    /// What was taken from the data directory (empty without sections, or with none kept).
    package let restoration: Restoration

    /// - Parameters:
    ///   - schedule: the prices.
    ///   - startedAt: now, the start when no costs in the schedule's currency are kept.
    ///   - sections: the store's sections, to continue the kept costs and keep them; `nil` keeps them in memory.
    package init(schedule: TariffSchedule, startedAt: Date, sections: StateSections? = nil) {
        var state = State(schedule: schedule)
        var restoration = Restoration()
        var start = startedAt
        if let sections {
            let kept = sections.records(Self.startSection)
            if let record = kept.first, record.count == 2, let seconds = Double(record[1]), seconds.isFinite, kept.count == 1 {
                if record[0] == schedule.currency {
                    start = Date(timeIntervalSince1970: seconds)
                    Self.restore(sections.records(Self.section), into: &state, restoration: &restoration)
                } else {
                    restoration.discardedCurrency = record[0]
                }
            } else if !kept.isEmpty {
                restoration.unreadable.append("\(Self.startSection) record 1: expected one record [currency, Unix seconds]")
            }
        }
        self.state = Mutex(state)
        self.sections = sections
        self.startedAt = start
        self.restoration = restoration
        keep()
    }

    /// Ends the costs kept in `sections` (a run without tariffs: the energy it does not price
    /// is never priced later).
    ///
    /// - Returns: whether there were costs to end.
    @discardableResult
    package static func end(in sections: StateSections) -> Bool {
        let ended = sections.replace(startSection, with: [])
        return sections.replace(section, with: []) || ended
    }

    /// Reads the kept devices' records into `state`; a bad record is skipped and named.
    private static func restore(_ records: [[String]], into state: inout State, restoration: inout Restoration) {
        for (index, record) in records.enumerated() {
            guard record.count >= 2, record.count % 2 == 0, !record[0].isEmpty,
                  let joules = Double(record[1]), StoredDeviceEnergy.isPlausible(joules) else {
                restoration.unreadable.append("\(section) record \(index + 1): expected [key, total (J), period, amount, …], numbers from 0 to 1e18")
                continue
            }
            var costs: [String: Double] = [:]
            var valid = true
            for pair in stride(from: 2, to: record.count, by: 2) {
                guard !record[pair].isEmpty, let amount = Double(record[pair + 1]), StoredDeviceEnergy.isPlausible(amount) else {
                    valid = false
                    break
                }
                costs[record[pair], default: 0] += amount
            }
            guard valid else {
                restoration.unreadable.append("\(section) record \(index + 1): an amount is not a number from 0 to 1e18")
                continue
            }
            state.last[record[0]] = joules
            if !costs.isEmpty { state.costs[record[0]] = costs }
            restoration.devices += 1
        }
    }

    /// Hands the costs to the sections for the next save (in memory: never waits for I/O).
    private func keep() {
        guard let sections else { return }
        let (currency, last, costs) = state.withLock { ($0.schedule.currency, $0.last, $0.costs) }
        var records: [[String]] = []
        records.reserveCapacity(last.count)
        for key in last.keys.sorted() {
            var record = [key, String(last[key] ?? 0)]
            for (period, amount) in (costs[key] ?? [:]).sorted(by: { $0.key < $1.key }) {
                record += [period, String(amount)]
            }
            records.append(record)
        }
        sections.replace(Self.startSection, with: [[currency, String(startedAt.timeIntervalSince1970)]])
        sections.replace(Self.section, with: records)
    }

    package var schedule: TariffSchedule { state.withLock { $0.schedule } }

    /// Records the energy totals (joules, by device key) of every device published at `date`:
    /// the growth since each device's previous total is priced at the tariff of `date`. A device
    /// seen for the first time, or whose total went down (its state was reset or moved), starts
    /// from its total now; a device not in `totals` (removed from the fleet) is forgotten, its
    /// costs no longer exported.
    package func record(_ totals: [String: Double], at date: Date) {
        state.withLock { state in
            let (period, price) = state.schedule.tariff(at: date)
            for (key, joules) in totals where joules.isFinite {
                defer { state.last[key] = joules }
                guard let previous = state.last[key], joules > previous else { continue }
                let cost = (joules - previous) / 3_600_000 * price
                guard cost.isFinite else { continue }
                state.costs[key, default: [:]][period, default: 0] += cost
            }
            state.last = state.last.filter { totals[$0.key] != nil }
            state.costs = state.costs.filter { totals[$0.key] != nil }
        }
        keep()
    }

    /// The cost of a device by period (every period of the schedule, 0 when none yet), in the
    /// order of ``TariffSchedule/periods``; empty for a device never recorded.
    package func costs(_ key: String) -> [(period: String, amount: Double)] {
        state.withLock { state in
            guard state.last[key] != nil else { return [] }
            let costs = state.costs[key] ?? [:]
            var periods = state.schedule.periods
            for period in costs.keys.sorted() where !periods.contains(period) { periods.append(period) }
            return periods.map { ($0, costs[$0] ?? 0) }
        }
    }

    /// Every recorded device's costs (``costs(_:)``), by key.
    package var all: [String: [(period: String, amount: Double)]] {
        let keys = state.withLock { Array($0.last.keys) }
        var result: [String: [(period: String, amount: Double)]] = [:]
        for key in keys { result[key] = costs(key) }
        return result
    }
}
