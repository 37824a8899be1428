import FoundationEssentials
import WPEnergy
import WPMetrics
import WPStorage

/// The `le` bounds of the outage-duration histogram (a generic type has no stored statics).
private let ledgerDurationBounds: [Double] = OutageLedger.durationBounds + [.infinity]

/// The outage-ledger families (docs/metrics.md, "Outage ledger").
///
/// Two counters are exported for every device with energy series, from its first reading, so
/// `increase()` sees the first outage and the first self-test (each jumps 0 → 1 at once). The
/// rest only once there is something to say: from the first transfer, the time and energy on
/// battery (their first value is 0: nothing is integrated before the second on-battery reading,
/// so `increase()` still sees all of it), the duration histogram (11 lines) and the last outage's
/// start; its end, duration and runtime once an outage ended with its end observed; the last
/// self-test's time and status from the first self-test. A fleet that never lost mains pays 2
/// series per device, not 21 (docs/performance.md has the cost).
extension CollectorState {
    /// The `le` bounds of `winpower_device_outage_duration_seconds`, `+Inf` included.
    /// One array for every device, so the encoder sees the same bounds (and formats them once).
    static var outageDurationBounds: [Double] { ledgerDurationBounds }

    func appendLedgerFamilies(_ context: RenderContext, ids: [String],
                              to families: inout [MetricFamily]) throws(MetricsError) {
        func family(_ name: String, _ help: String, _ type: MetricType, unit: String? = nil,
                    capacity: Int = 0) throws(MetricsError) -> MetricFamily {
            try MetricFamily(name: name, help: help, type: type, unit: unit, labelNames: deviceLabelNames,
                             capacity: capacity)
        }
        var transfers = try family("winpower_device_battery_transfers_total",
            "Transfers to battery (mode 4) from another mode: outages. A battery self-test is not one.",
            .counter, capacity: ids.count)
        var onBattery = try family("winpower_device_on_battery_seconds_total",
            "Seconds on battery, between consecutive on-battery readings no more than energy.max_gap apart.",
            .counter, unit: "seconds", capacity: ids.count)
        var discharge = try family("winpower_device_battery_discharge_joules_total",
            "Energy delivered while on battery (mode 4), in joules.", .counter, unit: "joules", capacity: ids.count)
        var tests = try family("winpower_device_battery_tests_total",
            "Battery self-tests (mode 5) seen starting.", .counter, capacity: ids.count)
        var durations = try family("winpower_device_outage_duration_seconds",
            "Durations of finished outages whose end was observed.", .histogram, unit: "seconds")
        var starts = try family("winpower_device_last_outage_start_timestamp_seconds",
            "Unix time the last (or current) outage began.", .gauge, unit: "seconds")
        var ends = try family("winpower_device_last_outage_end_timestamp_seconds",
            "Unix time the last outage ended; absent while its end is unknown.", .gauge, unit: "seconds")
        var lengths = try family("winpower_device_last_outage_duration_seconds",
            "Duration of the last finished outage; absent while its end is unknown.", .gauge, unit: "seconds")
        var runtimes = try family("winpower_device_last_outage_runtime_remaining_seconds",
            "Battery runtime WinPower reported at the last on-battery reading of the last finished outage.",
            .gauge, unit: "seconds")
        var testTimes = try family("winpower_device_last_battery_test_timestamp_seconds",
            "Unix time the last battery self-test began.", .gauge, unit: "seconds")
        var testCodes = try family("winpower_device_last_battery_test_status_code",
            "Raw testStatus code at the end of the last battery self-test (meanings unverified).", .gauge)
        for id in ids {
            guard let labels = energyLabels[id] else { continue }
            let ledger = context.totals[id]?.ledger ?? OutageLedger()
            try transfers.append(labelValues: labels, value: Double(max(0, ledger.transfers)))
            try tests.append(labelValues: labels, value: Double(max(0, ledger.tests)))
            if ledger.transfers > 0 || ledger.onBatterySeconds > 0 || ledger.dischargeJoules > 0 {
                try onBattery.append(labelValues: labels, value: ledger.onBatterySeconds)
                try discharge.append(labelValues: labels, value: ledger.dischargeJoules)
                let counts = ledger.cumulativeCounts
                try durations.append(Sample(labelValues: labels, value: .histogram(HistogramValue(
                    upperBounds: Self.outageDurationBounds, cumulativeCounts: counts,
                    count: counts.last ?? 0, sum: ledger.durationSum))))
            }
            if let date = ledger.lastStart { try starts.append(labelValues: labels, value: date.timeIntervalSince1970) }
            if let date = ledger.lastEnd { try ends.append(labelValues: labels, value: date.timeIntervalSince1970) }
            if let seconds = ledger.lastDuration { try lengths.append(labelValues: labels, value: seconds) }
            if let seconds = ledger.lastRuntime { try runtimes.append(labelValues: labels, value: seconds) }
            if let date = ledger.lastTest { try testTimes.append(labelValues: labels, value: date.timeIntervalSince1970) }
            if let code = ledger.lastTestStatus { try testCodes.append(labelValues: labels, value: Double(code)) }
        }
        families.append(contentsOf: [transfers, onBattery, discharge, tests, durations, starts, ends, lengths,
                                     runtimes, testTimes, testCodes])
    }
}
