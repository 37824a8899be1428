package import FoundationEssentials
import Synchronization
package import WPRuntime

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
/// Counting starts when the meter is made (``startedAt``), from each device's total then:
/// energy used before is never priced. ``replace(_:)`` takes a new schedule from that moment on
/// (a reload): past costs keep the prices they were counted at. The costs live in memory (they
/// start from zero with the process; `startedAt` is exported so a reader knows).
package final class EnergyCostMeter: Sendable {
    private struct State {
        var schedule: TariffSchedule
        /// The joules of each device at its last reading.
        var last: [String: Double] = [:]
        /// The cost by device key, then period.
        var costs: [String: [String: Double]] = [:]
    }

    private let state: Mutex<State>
    /// When counting started (wall clock).
    package let startedAt: Date

    package init(schedule: TariffSchedule, startedAt: Date) {
        state = Mutex(State(schedule: schedule))
        self.startedAt = startedAt
    }

    package var schedule: TariffSchedule { state.withLock { $0.schedule } }

    /// Takes a new schedule: it prices energy from now on only.
    package func replace(_ schedule: TariffSchedule) {
        state.withLock { $0.schedule = schedule }
    }

    /// Records the energy totals (joules, by device key) read at `date`: the growth since each
    /// device's previous total is priced at the tariff of `date`. A device seen for the first
    /// time, or whose total went down (its state was reset or moved), starts from its total now.
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
        }
    }

    /// Forgets devices not in `keys` (removed from the fleet): their costs stop being exported.
    package func retain(_ keys: Set<String>) {
        state.withLock { state in
            state.last = state.last.filter { keys.contains($0.key) }
            state.costs = state.costs.filter { keys.contains($0.key) }
        }
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
