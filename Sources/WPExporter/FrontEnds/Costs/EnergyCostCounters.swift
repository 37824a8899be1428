import FoundationEssentials
import Synchronization
import WPCollector
import WPConfig
import WPEnergy
import WPFrontEnd
import WPLogging
import WPMetrics
import WPRuntime
import WPStorage
import WPWallClock

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

/// The energy cost counters of `energy.tariffs`: a front end of the list whose cost meter
/// prices the growth of every device's served energy total at each publication, keeps the costs
/// in the data directory's sections, and serves them on `/metrics` (``EnergyCostMetrics``). A
/// reload that changes `energy.tariffs` makes it again: its successor continues from the costs
/// its predecessor kept in the sections (the same currency; another currency starts again), and
/// prices from then on at the new tariffs.
final class EnergyCostCounters: FrontEnd, EnergyCostSource {
    let name = "the energy cost counters"
    /// The cost meter.
    let meter: EnergyCostMeter

    private init(meter: EnergyCostMeter) {
        self.meter = meter
    }

    /// The counters of `energy.tariffs` (`nil` without a currency, when the costs kept end):
    /// the meter continued from `context.sections` (what it continued from is logged), its
    /// counters in `context.registry`, subscribed to `context.publication`.
    static func make<C: Clock>(_ context: FrontEndContext<C>) throws(FrontEndError) -> EnergyCostCounters?
    where C.Duration == Duration {
        let configuration = context.configuration
        let logger = context.logger.component("energy")
        guard let schedule = ExporterSettings.tariffs(configuration.energy.tariffs) else {
            if EnergyCostMeter.end(in: context.sections) {
                logger.info("energy costs kept in the data directory end: energy.tariffs has no currency")
            }
            return nil
        }
        let meter = EnergyCostMeter(schedule: schedule, startedAt: context.wallClock.now, sections: context.sections)
        let restoration = meter.restoration
        if restoration.devices > 0, !context.atReload {
            logger.info("energy costs continued from the data directory",
                        ["devices": .int(restoration.devices), "since": .double(meter.startedAt.timeIntervalSince1970)])
        }
        if let discarded = restoration.discardedCurrency {
            logger.warn("energy costs kept in another currency start again: energy.tariffs.currency changed",
                        ["kept_currency": .string(discarded), "currency": .string(schedule.currency)])
        }
        for problem in restoration.unreadable {
            logger.warn("an energy cost record of the data directory is unreadable and dropped", ["record": .string(problem)])
        }
        do {
            try context.registry.register(EnergyCostMetrics(meter: meter, servers: !configuration.servers.isEmpty))
        } catch {
            throw .metrics(error)
        }
        let wallClock = context.wallClock
        context.publication.subscribe { state in
            var totals: [String: Double] = [:]
            for server in state.servers {
                for (device, total) in server.totals { totals[server.energyKeyPrefix + device] = total.joules }
            }
            meter.record(totals, at: wallClock.now)
        }
        return EnergyCostCounters(meter: meter)
    }

    /// Nothing to serve: the meter works in its subscriber. Returns when cancelled.
    func run() async throws {
        await untilCancelled()
    }
}

extension FrontEndFactory {
    /// The energy cost counters of `energy.tariffs` (off without a currency); made again when
    /// `energy.tariffs` changes.
    static var energyCost: FrontEndFactory {
        FrontEndFactory(section: "energy", settings: { $0.energy.tariffs }) { context throws(FrontEndError) in
            try EnergyCostCounters.make(context)
        }
    }
}
