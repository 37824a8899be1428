import FoundationEssentials
import WPClient
package import WPCollector
package import WPConfig
import WPEnergy
package import WPLogging
package import WPScheduler

/// One WinPower server's collection: its own client (token, backoff, timeouts), collector and
/// scheduler. A multi-server exporter runs one per `servers` entry, all as tasks on the shared
/// runtime; the single-server exporter runs one for `winpower`.
///
/// Nothing is shared between pipelines but the energy meter (whose locks are never held
/// across I/O) and the ``ExpositionMerger`` they publish to, so a server that is down, slow,
/// hung or rejecting the password delays only its own pipeline.
package final class ServerPipeline<C: Clock>: Sendable where C.Duration == Duration {
    /// `servers[].name`; empty for the single server of `winpower`.
    package let name: String
    /// `server` and the entry's static labels; empty for the single server.
    package let labels: [SeriesLabel]
    package let collector: WPCollector.WinPowerCollector<C>
    package let scheduler: TickScheduler<C>

    /// - Parameters:
    ///   - name: the server's name (empty for a single server).
    ///   - labels: the series labels (empty for a single server).
    ///   - collector: collects this server's devices into the shared meter.
    ///   - interval: the collection interval of this server.
    ///   - gracefulShutdownTimeout: how long a collection in flight may finish at shutdown.
    ///   - clock: drives the scheduler.
    ///   - logger: the scheduler's logger.
    ///   - missedTicks: the warnings about missed ticks every server's scheduler shares.
    ///
    /// The collector publishes on its own (its `published` hook): a collection this scheduler
    /// runs and one a test drives reach the fleet's publication alike.
    package init(name: String, labels: [SeriesLabel], collector: WPCollector.WinPowerCollector<C>, interval: Duration,
         gracefulShutdownTimeout: Duration, clock: C, logger: WPLogger, missedTicks: MissedTickWarnings<C>? = nil) {
        self.name = name
        self.labels = labels
        self.collector = collector
        scheduler = TickScheduler(configuration: .init(interval: interval, gracefulShutdownTimeout: gracefulShutdownTimeout,
                                                   workName: "collection"),
                              clock: clock, logger: logger,
                              // Republishes at once: a hung collection publishes nothing until
                              // it times out, yet its readings must go stale on time.
                              onSkip: { collector.recordSkippedCollections(total: $0.skipped) },
                              missedTicks: missedTicks) { _ in
            await collector.collect()
        }
    }

    /// The collector configuration of `entry`: its interval, base URL, labels and energy keys;
    /// for the unnamed server of a `winpower`-only configuration, no labels and no key prefix.
    ///
    /// - Parameters:
    ///   - entry: the `servers` entry, or ``Exporter/singleServerEntry(_:)``.
    ///   - configuration: the whole configuration (for `scheduler.collection_interval`).
    package static func collectorConfiguration(_ entry: ServerEntry,
                                       _ configuration: ExporterConfiguration) -> CollectorConfiguration {
        guard !entry.name.isEmpty else { return ExporterSettings.collector(configuration) }
        var result = CollectorConfiguration(interval: entry.collectionInterval ?? configuration.scheduler.collectionInterval,
                                            target: ExporterSettings.target(entry.winPower.baseURL))
        result.seriesLabels = seriesLabels(entry)
        result.energyKeyPrefix = EnergyKey.prefix(server: entry.name)
        result.readings = ExporterSettings.readings(entry.winPower)
        result.devices = ExporterSettings.devices(entry.winPower.devices)
        return result
    }

    /// `server="<name>"` followed by the entry's static labels.
    package static func seriesLabels(_ entry: ServerEntry) -> [SeriesLabel] {
        [SeriesLabel(name: "server", value: entry.name)] + entry.labels.map { SeriesLabel(name: $0.name, value: $0.value) }
    }
}
