import WPTime
import FoundationEssentials
import WPCollector
import WPConfig
import WPEnergy
import WPFrontEnd
import WPHistory
import WPLogging
import WPMetrics
import WPNUTFrontEnd
import WPScheduler
import WPRuntime
import WPServer
import WPServerMetrics
import WPStatusPage
import WPStorage
import WPWallClock

// How ``Exporter``'s initializer composes the exporter: each part from its configuration
// section, in the order the initializer lists them (docs/architecture.md, "Front ends").
extension Exporter {
    /// Opens the energy store of `storage.data_dir` (taking its lock) or in memory, and says
    /// where the totals are kept.
    static func openStore(_ configuration: ExporterConfiguration, storage: StorageConfiguration, options: Options,
                          logger: WPLogger, components: WPLogger) throws(ExporterError) -> any EnergyStore {
        let store: any EnergyStore
        do {
            store = try options.energyStorage.make(storage, components.component("storage"), options.wallClock)
        } catch {
            throw .dataDirectory(error)
        }
        // A relative storage.data_dir (the default is ./data) depends on the working directory:
        // say where the totals are.
        if options.energyStorage.isDataDirectory {
            logger.info("energy totals kept in the data directory",
                        ["data_dir": .string(Self.absolute(configuration.storage.dataDirectory))])
        } else {
            logger.info("energy totals kept in memory only: they start from zero and end with the process",
                        ["store": .string(store.location)])
        }
        return store
    }

    /// One member per server of `configuration`, each with its client.
    static func members(_ configuration: ExporterConfiguration, makeMember: ServerFleet<C>.MemberFactory,
                        makeClient: ClientFactory) throws(ExporterError) -> [ServerFleet<C>.Member] {
        var members: [ServerFleet<C>.Member] = []
        for entry in serverEntries(configuration) {
            do {
                members.append(makeMember(entry, try makeClient(entry), configuration))
            } catch {
                throw .client(server: entry.name, reason: "\(error)")
            }
        }
        return members
    }

    /// The reloader of SIGHUP and `POST /-/reload`, its status among the per-scrape metrics of
    /// `scrape`: applies through `applier`, then makes the passwords now in effect the log's
    /// secrets (a rotated one is masked too).
    /// Each outcome is told to the front ends that observe the configuration (the history
    /// writer journals it).
    static func reloader(_ load: ConfigReloader.Load?, applier: ReloadApplier<C>, running: RunningConfiguration,
                         scrape: ScrapeMetrics, logger: WPLogger, components: WPLogger,
                         frontEnds: FrontEndList<C>,
                         wallClock: WallClock) throws(ExporterError) -> ConfigReloader {
        let redactor = logger.redactor
        let reloader = ConfigReloader(load: load, apply: { next in
            let applied = try await applier.apply(next)
            ExporterSecrets.register(running.value, in: redactor)
            return applied
        }, logger: components.component("reload"), wallClock: wallClock, observe: { outcome in
            let event: ConfigurationEvent
            switch outcome {
            case .applied(let applied): event = .reloaded(summary: applied.summary)
            case .rejected(let reason): event = .refused(reason: reason)
            }
            for frontEnd in frontEnds.frontEnds { (frontEnd as? any ConfigurationObserving)?.configuration(event) }
        })
        do {
            try reloader.register(in: scrape.registry)
        } catch {
            throw .metrics(error)
        }
        return reloader
    }

    /// The exporter's own per-scrape metrics (the reload status joins them with the reloader).
    static func scrapeMetrics() throws(ExporterError) -> ScrapeMetrics {
        do {
            return try ScrapeMetrics(build: .current)
        } catch {
            throw .metrics(error)
        }
    }

    /// Every HTTP endpoint over the fleet's latest publication, with what `/health` shows of the
    /// other front ends and of the data directory (its owner's state, read as it is), and the
    /// routes the front ends add (the status pages').
    static func endpoints(_ configuration: ExporterConfiguration, publication: FleetPublication<C>,
                          meter: EnergyMeter<C>, store: any EnergyStore, scrape: ScrapeMetrics,
                          reloader: ConfigReloader, frontEnds: @escaping @Sendable () -> [any FrontEnd], routes: [FrontEndRoutes],
                          wallClock: WallClock) -> Endpoints {
        return Endpoints(view: { Self.view(publication.current, clock: publication.clock) },
                         exposition: { Self.exposition(publication.exposition) },
                         version: BuildInfo.exporterVersion,
                         metricsPath: configuration.server.metricsPath, startedAt: wallClock.now, wallClock: wallClock,
                         scrape: scrape, reloader: reloader, lifecycleEnabled: configuration.server.enableLifecycle,
                         frontEnds: frontEnds,
                         storage: {
                             let status = meter.status
                             return StorageHealth(dataDirectory: store.location, lastError: status.lastPersistError,
                                                  saveFailures: status.persistFailures)
                         },
                         frontEndRoutes: routes)
    }

    /// The HTTP listener of `server.*` over `endpoints`, its connections on `/metrics`.
    static func httpFrontEnd(_ configuration: ExporterConfiguration, endpoints: Endpoints, scrape: ScrapeMetrics,
                             budget: DescriptorBudget?, options: Options,
                             logger: WPLogger) throws(ExporterError) -> HTTPFrontEnd {
        var serverConfiguration = ExporterSettings.server(configuration)
        serverConfiguration.tls = options.webSecurity.tls
        if let budget { serverConfiguration.reservedDescriptors = budget.reservedForHTTP }
        let server = options.listeners.http(serverConfiguration, endpoints.makeHandler(security: options.webSecurity),
                                            logger.component("http"), scrape.requests)
        do {
            try scrape.registry.register(ConnectionMetrics(prefix: "winpower_exporter_http_connections", protocolName: "HTTP") {
                server.statistics
            })
        } catch {
            throw .metrics(error)
        }
        return HTTPFrontEnd(server: server)
    }

    /// Descriptors the exporter holds apart from client connections: standard streams, the log
    /// file, the data directory's lock and a state file being written, two event loops and
    /// their listeners, the signal pipe, timers, a name lookup (16), and 2 per WinPower server
    /// (its kept connection and one being opened). Measured: 25 open with 10 servers and no
    /// client connected (14, and 11 sockets: the listener and one kept connection per server).
    static func reservedDescriptors(servers: Int) -> Int { 16 + 2 * servers }

    /// The HTTP listener's and each front end's connection caps within the open-files limit
    /// (`nil` when unlimited), the front ends' requests in the list's order
    /// (``FrontEndFactory/connections``); caps lowered by it are logged.
    ///
    /// - Throws: ``ExporterError/openFiles(_:)`` when the limit is too low to serve at all.
    static func descriptorBudget(_ configuration: ExporterConfiguration, limit: Int?, factories: [FrontEndFactory<C>],
                                 logger: WPLogger) throws(ExporterError) -> DescriptorBudget? {
        guard let limit else { return nil }
        let http = WPHTTPServer.Configuration().maxConnections
        let requests = factories.map { $0.connections(configuration) }
        let budget: DescriptorBudget
        do {
            budget = try DescriptorBudget(limit: limit, reserved: reservedDescriptors(servers: serverEntries(configuration).count),
                                          httpConnections: http, requests: requests)
        } catch {
            throw .openFiles(error)
        }
        let lowered = zip(factories, zip(requests, budget.grants)).filter { _, pair in
            if let wanted = pair.0, let granted = pair.1 { return granted < wanted }
            return false
        }
        if budget.httpConnections < http || !lowered.isEmpty {
            var fields: LogFields = ["open_files": .int(limit), "reserved": .int(budget.reserved),
                                     "http_connections": .int(budget.httpConnections)]
            for (factory, granted) in zip(factories, budget.grants) {
                if let granted { fields["\(factory.section)_connections"] = .int(granted) }
            }
            logger.info("connection caps fitted to the open files limit", fields)
        }
        return budget
    }

    /// Makes each front end's context under a configuration: the fleet's publication, the
    /// clocks and loggers, the data directory's sections, the listeners' TLS and bcrypt
    /// threads, `/metrics`' text, and the factory's share of the open-files limit (fitted again
    /// for the configuration a reload brings). The data directory is the one the store holds
    /// (`dataDirectory`, the startup configuration's; `nil` when energy is kept elsewhere): a reload's `storage.data_dir` takes
    /// effect at the next start only, for front ends as for the store.
    static func makeContext(publication: FleetPublication<C>, scrape: ScrapeMetrics, store: any EnergyStore,
                            dataDirectory directory: String?, factories: [FrontEndFactory<C>], openFiles: Int?, options: Options,
                            running: RunningConfiguration, components: WPLogger) -> FrontEndList<C>.MakeContext {
        let (clock, wallClock, tls, passwords) = (options.clock, options.wallClock, options.webSecurity.tls, options.webSecurity.passwords)
        return { configuration, factory in
            var connections: Int?
            if let openFiles, let index = factories.firstIndex(where: { $0.section == factory.section }),
               let budget = try? DescriptorBudget(limit: openFiles,
                                                  reserved: reservedDescriptors(servers: serverEntries(configuration).count),
                                                  httpConnections: WPHTTPServer.Configuration().maxConnections,
                                                  requests: factories.map { $0.connections(configuration) }) {
                connections = budget.grants[index]
            }
            return FrontEndContext(configuration: configuration, publication: publication, registry: scrape.registry,
                                   logger: components, clock: clock, wallClock: wallClock, version: BuildInfo.exporterVersion,
                                   dataDirectory: directory,
                                   sections: store.sections, connections: connections, tls: tls, passwords: passwords,
                                   exposition: { Endpoints.textExposition(Self.exposition(publication.exposition).snapshot, scrape: scrape) },
                                   configurationNow: { running.value })
        }
    }

    /// The system's time zone (`TZ`, else `/etc/localtime`), read without blocking; when it cannot
    /// be read, a warning names why and the pages show UTC.
    static func systemTimeZone(_ logger: WPLogger) -> TimeZoneRules {
        let (rules, problem) = TimeZoneRules.systemZone()
        if let problem {
            logger.warn("the system's time zone cannot be read; times are shown in UTC", ["reason": .string(problem.description)])
        }
        return rules
    }

    /// The one naming of the UPSs every publication carries (NUT's `rack-a@host` and SNMP's
    /// `community@rack-a` alike), kept in the data directory when either serves them.
    static func upsNaming(_ configuration: ExporterConfiguration, store: any EnergyStore) -> UPSNaming {
        let settings = UPSNaming.Settings(configuration.nut)
        guard configuration.nut.address != nil || configuration.snmp.address != nil else {
            // Kept while neither serves, for when one does again (names survive).
            store.sections.claim(UPSNameMemory.section)
            return UPSNaming(settings: settings)
        }
        return UPSNaming(settings: settings, memory: UPSNameMemory(store.sections))
    }

    /// The exposition and servers of a published state as the endpoints see them: a single
    /// unnamed server serves its collector's own snapshot, several servers the merged one.
    static func view(_ state: FleetState<C>, clock: C) -> Endpoints.View {
        let servers = state.servers.map { server in
            ServerView(name: server.name, labels: server.labels, target: server.target,
                       snapshot: { server.snapshot }, health: { server.health },
                       sinceLastSuccess: { server.sinceLastSuccess(at: clock.now) },
                       stalenessWindow: server.stalenessWindow)
        }
        let (snapshot, bodyParts) = exposition(state.exposition)
        if servers.count == 1, let single = servers.first, single.name.isEmpty {
            return Endpoints.View(snapshot: snapshot, bodyParts: nil, single: single, servers: [])
        }
        return Endpoints.View(snapshot: snapshot, bodyParts: bodyParts, single: nil, servers: servers)
    }

    /// `/metrics`' snapshot of a published exposition, and a merged one's parts.
    static func exposition(_ exposition: FleetExposition)
        -> (snapshot: MetricsSnapshot, bodyParts: (@Sendable (MetricsSnapshot, Bool) -> HTTPBodyParts?)?) {
        guard exposition.parts != nil else { return (exposition.snapshot, nil) }
        return (exposition.snapshot, { snapshot, openMetrics in
            snapshot === exposition.snapshot ? exposition.bodyParts(openMetrics: openMetrics) : nil
        })
    }

    /// Makes a server's pipeline around its client, its collector publishing to `publication`.
    static func memberFactory(meter: EnergyMeter<C>, publication: FleetPublication<C>, clock: C,
                              wallClock: WallClock, logger: WPLogger, graceful: Duration,
                              saveWait: Duration) -> ServerFleet<C>.MemberFactory {
        // One warning a minute about missed ticks for every server's scheduler, not one each.
        let missedTicks = MissedTickWarnings<C>()
        return { entry, client, configuration in
            let fields: [String: LogValue] = entry.name.isEmpty ? [:] : ["server": .string(entry.name)]
            var collectorConfiguration = ServerPipeline<C>.collectorConfiguration(entry, configuration)
            collectorConfiguration.saveWait = saveWait
            let collector = WinPowerCollector(configuration: collectorConfiguration,
                                              client: client, meter: meter, clock: clock, wallClock: wallClock,
                                              logger: logger.component("collector", fields: fields),
                                              published: publication.publisher(server: entry.name))
            let pipeline = ServerPipeline(
                name: entry.name, labels: collector.configuration.seriesLabels, collector: collector,
                interval: collector.configuration.interval, gracefulShutdownTimeout: graceful, clock: clock,
                logger: logger.component("scheduler", fields: fields), missedTicks: missedTicks)
            return ServerFleet<C>.Member(entry: entry, interval: collector.configuration.interval, client: client,
                                         pipeline: pipeline)
        }
    }

    /// Opens the shared meter; with `servers`, moves stored totals as ``EnergyMigration`` says
    /// and warns about unqualified totals no entry adopts.
    static func openMeter(_ configuration: ExporterConfiguration, storage: StorageConfiguration,
                          store: any EnergyStore, clock: C, logger: WPLogger) throws(ExporterError) -> EnergyMeter<C> {
        do {
            return try openMeter(configuration, storage: storage, store: store, clock: clock, energyLogger: logger.component("energy"))
        } catch {
            throw .dataDirectory(error)
        }
    }

    static func openMeter(_ configuration: ExporterConfiguration, storage: StorageConfiguration,
                          store: any EnergyStore, clock: C, energyLogger: WPLogger) throws -> EnergyMeter<C> {
        let energy = ExporterSettings.energy(configuration.energy)
        guard !configuration.servers.isEmpty else {
            return try EnergyMeter.open(configuration: energy, persistence: storage.persistencePolicy, store: store,
                                        clock: clock, logger: energyLogger)
        }
        let migration = EnergyMigration(configuration)
        var unadopted = 0
        let (meter, moved) = try EnergyMeter.open(configuration: energy, persistence: storage.persistencePolicy,
                                                  store: store, clock: clock, logger: energyLogger) { keys in
            let plan = migration.moves(keys)
            unadopted = plan.unadopted
            return plan.moves
        }
        if moved > 0 {
            energyLogger.info("stored energy totals moved to their servers", ["devices": .int(moved)])
        }
        if unadopted > 0 {
            energyLogger.warn("energy totals of a winpower-only configuration are adopted by no server: kept, not exported "
                              + "(set energy_from: winpower on the entry that continues them)", ["devices": .int(unadopted)])
        }
        return meter
    }
}
