package import WPTime
package import FoundationEssentials
import WPRuntime

/// The energy cost the status pages show: each device's cost totals by tariff period, the
/// currency, and when the totals started counting. Empty without `energy.tariffs`.
package struct StatusCosts: Sendable {
    /// The currency of the amounts; `nil` without tariffs.
    package var currency: String?
    /// When the cost totals started counting; `nil` when unknown.
    package var since: Date?
    /// A device's totals by period, by its energy key.
    package var costs: @Sendable (_ energyKey: String) -> [(period: String, amount: Double)]
    /// The time zone the pages show times in and the days and months of the energy columns
    /// begin in: the tariffs', else the system's.
    package var timeZone: TimeZoneRules

    package init(currency: String? = nil, since: Date? = nil, timeZone: TimeZoneRules = .fixed(0),
                 costs: @escaping @Sendable (_ energyKey: String) -> [(period: String, amount: Double)] = { _ in [] }) {
        self.currency = currency
        self.since = since
        self.timeZone = timeZone
        self.costs = costs
    }
}
