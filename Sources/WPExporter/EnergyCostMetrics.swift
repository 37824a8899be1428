import FoundationEssentials
import Synchronization
import WPCollector
import WPConfig
import WPEnergy
import WPFrontEnd
import WPLogging
import WPMetrics
import WPStorage

/// The energy cost of `energy.tariffs` on `/metrics` (per scrape, from the cost meter):
/// `winpower_device_energy_cost_total{device_id,tariff,currency}` (with `server` when several
/// servers are configured) and `winpower_exporter_energy_cost_start_timestamp_seconds`, when
/// counting started.
struct EnergyCostMetrics: Collector {
    static let costName = "winpower_device_energy_cost_total"
    static let startName = "winpower_exporter_energy_cost_start_timestamp_seconds"
    static let costHelp = "Cost of the energy each device used since the start timestamp, per tariff period, in the configured currency."
    static let startHelp = "Unix time the energy cost counters started counting (kept in the data directory across restarts)."

    let meter: EnergyCostMeter
    /// Whether the series carry `server` (several servers configured).
    let servers: Bool

    private var labelNames: [String] { (servers ? ["server"] : []) + ["device_id", "tariff", "currency"] }

    var descriptors: [MetricDescriptor] {
        [MetricDescriptor(name: Self.costName, help: Self.costHelp, type: .counter, labelNames: labelNames),
         MetricDescriptor(name: Self.startName, help: Self.startHelp, type: .gauge, unit: "seconds")]
    }

    func collect() -> [MetricFamily] {
        let currency = meter.schedule.currency
        let all = meter.all
        guard var costs = try? MetricFamily(name: Self.costName, help: Self.costHelp, type: .counter, labelNames: labelNames,
                                            capacity: all.count * 3),
              var start = try? MetricFamily(name: Self.startName, help: Self.startHelp, type: .gauge, unit: "seconds") else {
            return []
        }
        for key in all.keys.sorted() {
            let parts = EnergyKey.split(key)
            let (server, device) = (parts?.server, parts?.device ?? key)
            guard servers == (server != nil) else { continue }
            for (period, amount) in all[key] ?? [] {
                try? costs.append(labelValues: (server.map { [$0] } ?? []) + [device, period, currency], value: amount)
            }
        }
        try? start.append(labelValues: [], value: meter.startedAt.timeIntervalSince1970)
        return [costs, start]
    }
}

extension Exporter {
    /// The cost meter of `energy.tariffs` (`nil` without a currency): subscribed to the
    /// publication, pricing the growth of every device's served energy total, its counters
    /// registered in `registry`, its costs kept in `store`'s sections (what it continued from
    /// them is logged).
    static func energyCost(_ configuration: ExporterConfiguration, publication: FleetPublication<C>,
                           store: any EnergyStore, registry: MetricRegistry, logger: WPLogger,
                           wallClock: @escaping @Sendable () -> Date) throws(ExporterError) -> EnergyCostMeter? {
        guard let schedule = ExporterSettings.tariffs(configuration.energy.tariffs) else {
            if EnergyCostMeter.end(in: store.sections) {
                logger.info("energy costs kept in the data directory end: energy.tariffs has no currency")
            }
            return nil
        }
        let costs = EnergyCostMeter(schedule: schedule, startedAt: wallClock(), sections: store.sections)
        let restoration = costs.restoration
        if restoration.devices > 0 {
            logger.info("energy costs continued from the data directory",
                        ["devices": .int(restoration.devices), "since": .double(costs.startedAt.timeIntervalSince1970)])
        }
        if let discarded = restoration.discardedCurrency {
            logger.warn("energy costs kept in another currency start again: energy.tariffs.currency changed",
                           ["kept_currency": .string(discarded), "currency": .string(schedule.currency)])
        }
        for problem in restoration.unreadable {
            logger.warn("an energy cost record of the data directory is unreadable and dropped", ["record": .string(problem)])
        }
        do {
            try registry.register(EnergyCostMetrics(meter: costs, servers: !configuration.servers.isEmpty))
        } catch {
            throw .metrics(error)
        }
        publication.subscribe { state in
            var totals: [String: Double] = [:]
            for server in state.servers {
                for (device, total) in server.totals { totals[server.energyKeyPrefix + device] = total.joules }
            }
            costs.record(totals, at: wallClock())
        }
        return costs
    }
}
