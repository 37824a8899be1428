import WPTime
import WPText
import FoundationEssentials
import WPRuntime

extension ExporterConfiguration.Energy {
    /// `energy.tariffs.*`: what energy costs, so the exporter counts it per device and tariff
    /// period (`winpower_device_energy_cost_total{tariff}`): a flat price, or time-of-use
    /// periods (peak and valley hours, flat the rest of the day) in a time zone, with a currency.
    /// Off until `energy.tariffs.currency` is set.
    public struct Tariffs: Sendable, Equatable {
        /// A stretch of the day, from `start` to `end` minutes after local midnight (`end` may
        /// be less than `start`: the period runs past midnight).
        public struct Hours: Sendable, Equatable {
            /// Minutes after local midnight the period starts at (0–1439), included.
            public var start: Int
            /// Minutes after local midnight the period ends at, excluded (0–1440: `24:00` is 1440).
            public var end: Int

            /// The period from `start` to `end` minutes after local midnight.
            public init(start: Int, end: Int) {
                self.start = start
                self.end = end
            }

            /// Whether the minute of the day `minute` (0–1439) is in it.
            public func contains(_ minute: Int) -> Bool {
                start <= end ? (start <= minute && minute < end) : (minute >= start || minute < end)
            }
        }

        /// `energy.tariffs.currency`; `nil`: no cost is counted.
        public var currency: String?
        /// `energy.tariffs.time_zone`: a name of the system's time zone database (`Asia/Shanghai`,
        /// `Europe/Berlin`: daylight saving time followed), `UTC`, or a fixed offset (`UTC+08:00`).
        public var timeZone = "UTC"
        /// `energy.tariffs.flat_price`: per kWh outside the peak and valley hours.
        public var flatPrice: Double?
        /// `energy.tariffs.peak_price`: per kWh in the peak hours.
        public var peakPrice: Double?
        /// `energy.tariffs.peak_hours`: when the peak price applies.
        public var peakHours: [Hours] = []
        /// `energy.tariffs.valley_price`: per kWh in the valley hours.
        public var valleyPrice: Double?
        /// `energy.tariffs.valley_hours`: when the valley price applies (never overlapping the peak
        /// hours).
        public var valleyHours: [Hours] = []

        /// Creates the tariffs unset: no currency, so no cost is counted.
        public init() {}

        /// Whether costs are counted.
        public var isEnabled: Bool { currency != nil }

        /// A price: a decimal number of at most 6 fraction digits, 0 to 1,000,000; `nil` otherwise.
        public static func price(_ text: String) -> Double? {
            let trimmed = text.trimmingSpacesAndTabs()
            guard !trimmed.isEmpty, trimmed.allSatisfy({ $0.isASCII && ($0.isNumber || $0 == ".") }),
                  trimmed.filter({ $0 == "." }).count <= 1,
                  (trimmed.split(separator: ".", omittingEmptySubsequences: false).dropFirst().first?.count ?? 0) <= 6,
                  let value = Double(trimmed), value.isFinite, value >= 0, value <= 1_000_000 else { return nil }
            return value
        }

        /// Hours as `HH:MM-HH:MM`, comma-separated (`08:00-11:00,18:00-21:00`; `24:00` ends a
        /// day; `23:00-07:00` runs past midnight); `nil` when the text is not that, or a stretch
        /// is empty.
        public static func hours(_ text: String) -> [Hours]? {
            func minute(_ clock: Substring) -> Int? {
                let parts = clock.split(separator: ":", omittingEmptySubsequences: false)
                guard parts.count == 2, parts[0].count == 2, parts[1].count == 2,
                      let hour = Int(parts[0]), let minute = Int(parts[1]), (0...24).contains(hour), (0..<60).contains(minute),
                      hour < 24 || minute == 0 else { return nil }
                return hour * 60 + minute
            }
            var result: [Hours] = []
            for stretch in text.split(separator: ",") {
                let ends = stretch.trimmingSpacesAndTabs().split(separator: "-")
                guard ends.count == 2, let start = minute(ends[0]), let end = minute(ends[1]), start != end,
                      start < 1440 else { return nil }
                result.append(Hours(start: start, end: end))
            }
            return result.isEmpty ? nil : result
        }

        /// The period (`peak`, `valley` or `flat`) and its price at the minute of the day `minute`
        /// (local to ``timeZone``); `nil` when no price applies.
        public func tariff(minuteOfDay minute: Int) -> (period: String, price: Double)? {
            if let peakPrice, peakHours.contains(where: { $0.contains(minute) }) { return ("peak", peakPrice) }
            if let valleyPrice, valleyHours.contains(where: { $0.contains(minute) }) { return ("valley", valleyPrice) }
            return flatPrice.map { ("flat", $0) }
        }

        /// What is wrong with these tariffs, by key; empty when they can be used.
        public func problems() -> [(key: String, message: String)] {
            var problems: [(key: String, message: String)] = []
            guard let currency else {
                if flatPrice != nil || peakPrice != nil || valleyPrice != nil || !peakHours.isEmpty || !valleyHours.isEmpty {
                    problems.append(("energy.tariffs.currency", "is not set, but prices or hours are: set the currency of the prices (e.g. CNY)"))
                }
                return problems
            }
            if currency.isEmpty || currency.count > 16 || !currency.allSatisfy({ $0.isLetter || $0.isNumber || "$€¥£_".contains($0) }) {
                problems.append(("energy.tariffs.currency", "\(currency.debugDescription) is not a currency code or sign (letters, digits, $ € ¥ £; at most 16)"))
            }
            if TimeZoneRules.named(timeZone) == nil {
                problems.append(("energy.tariffs.time_zone", "\(timeZone.debugDescription) is not a time zone of the system's database (/usr/share/zoneinfo: Asia/Shanghai), UTC, or an offset such as UTC+08:00"))
            }
            if flatPrice == nil {
                problems.append(("energy.tariffs.flat_price", "is required with energy.tariffs.currency: the price of 1 kWh outside the peak and valley hours"))
            }
            for (name, price, hours) in [("peak", peakPrice, peakHours), ("valley", valleyPrice, valleyHours)] {
                if price != nil, hours.isEmpty {
                    problems.append(("energy.tariffs.\(name)_hours", "is required with energy.tariffs.\(name)_price"))
                } else if price == nil, !hours.isEmpty {
                    problems.append(("energy.tariffs.\(name)_price", "is required with energy.tariffs.\(name)_hours"))
                }
            }
            if (0..<1440).contains(where: { minute in
                peakHours.contains { $0.contains(minute) } && valleyHours.contains { $0.contains(minute) }
            }) {
                problems.append(("energy.tariffs.valley_hours", "overlaps energy.tariffs.peak_hours: a minute of the day is in one period only"))
            }
            return problems
        }
    }
}
