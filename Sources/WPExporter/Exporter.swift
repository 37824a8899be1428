import FoundationEssentials
import Synchronization
import WPClient
import WPCollector
import WPConfig
import WPEnergy
import WPLogging
import WPMetrics
import WPPushgateway
import WPScheduler
import WPServer
import WPStorage

/// The running exporter: energy store, meter, one collector and scheduler per WinPower server
/// (``ServerPipeline``), the merged exposition of several servers, and the HTTP server, composed
/// from one ``ExporterConfiguration``.
///
/// Creating it takes the data directory's lock and loads the stored energy; ``run(onListening:until:)``
/// binds, ticks and serves until `shutdown` returns, then lets the collection and scrapes in
/// flight finish within `scheduler.graceful_shutdown_timeout` and persists energy. The clock is
/// injected: tests drive ``collector`` by hand with a manual clock.
///
/// ```swift
/// let exporter = try Exporter(configuration: config, client: client, clock: ContinuousClock(),
///                             wallClock: { Date() }, logger: logger)
/// try await exporter.run(onListening: { print("http://\($0)/metrics") }, until: { await signals.first() })
/// ```
package final class Exporter<C: Clock>: Sendable where C.Duration == Duration {
    /// Makes a server's pipeline (collector and scheduler) around its client.
    package typealias MemberFactory = @Sendable (ServerEntry, any WinPowerClient, ExporterConfiguration) -> ServerFleet<C>.Member

    package let configuration: ExporterConfiguration
    package let logger: Logger
    package let store: FileEnergyStore
    package let meter: EnergyMeter<C>
    /// The servers of a multi-server exporter, changed by reloads; `nil` for a single server.
    package let fleet: ServerFleet<C>?
    /// One pipeline per `servers` entry, in file order (now: reloads change them), or the
    /// single one of `winpower`.
    package var pipelines: [ServerPipeline<C>] { fleet?.pipelines ?? [primary] }
    /// Makes a new server's WinPower client on reload; `nil` when servers cannot change.
    private let clientFactory: ClientFactory?
    /// Merges the servers' expositions into `/metrics`; `nil` for a single server.
    package let merger: ExpositionMerger<C>?
    package let server: HTTPServer
    package let scrape: ScrapeMetrics
    package let endpoints: Endpoints
    /// Pushes to `push.url` when it is set.
    package let pushLoop: PushLoop<C>?
    /// Whether the listener speaks TLS (the web configuration file sets it up).
    package let isSecure: Bool
    /// Re-reads the configuration on SIGHUP and `POST /-/reload`.
    package let reloader: ConfigReloader
    /// The configuration in effect (the startup one plus what reloads applied).
    private let running: RunningConfiguration

    /// The first server's collector (the only one without `servers`).
    package var collector: WPCollector.WinPowerCollector<C> { primary.collector }
    /// The first server's scheduler (the only one without `servers`).
    package var scheduler: Scheduler<C> { primary.scheduler }
    private let primary: ServerPipeline<C>

    /// A single-server exporter (or one whose `servers` has exactly one entry).
    package convenience init(configuration: ExporterConfiguration, client: any WinPowerClient, clock: C,
                     wallClock: @escaping @Sendable () -> Date, logger: Logger, webSecurity: WebSecurity = .none,
                     reload: ConfigReloader.Load? = nil) throws {
        try self.init(configuration: configuration, clients: [client], clock: clock, wallClock: wallClock,
                      logger: logger, webSecurity: webSecurity, reload: reload)
    }

    /// - Parameters:
    ///   - configuration: the validated configuration.
    ///   - clients: where devices are read from: one per `servers` entry in order, or one for
    ///     `winpower` when `servers` is empty.
    ///   - clock: drives the schedulers, energy integration and staleness.
    ///   - wallClock: timestamps and `/health` ages.
    ///   - logger: the root logger; components log under child labels.
    ///   - webSecurity: TLS and basic authentication from `server.web_config_file`.
    ///   - reload: loads the configuration again (from the startup file, environment and
    ///     flags); `nil` when this exporter cannot reload (a reload then fails and says so).
    ///   - clientFactory: makes the client of a server a reload adds or changes; without it a
    ///     reload cannot change `servers`.
    ///   - mergeSpacing: the minimum time between two merges of the servers' expositions
    ///     (``ExpositionMerger``); zero merges on every publish.
    ///   - afterCollection: runs after each published collection (and merge); the executable
    ///     returns freed heap memory to the system there.
    /// - Throws: `StorageError` when the data directory is locked by another process or
    ///   unusable; `PushError` for a `push.url` the Pushgateway client cannot use;
    ///   ``RuntimeFailure`` when `clients` does not match the servers; `MetricsError` never
    ///   in practice (fixed names).
    package init(configuration: ExporterConfiguration, clients: [any WinPowerClient], clock: C,
         wallClock: @escaping @Sendable () -> Date, logger: Logger, webSecurity: WebSecurity = .none,
         reload: ConfigReloader.Load? = nil, clientFactory: ClientFactory? = nil,
         mergeSpacing: Duration = ExpositionMerger<C>.defaultSpacing,
         afterCollection: @escaping @Sendable () -> Void = {}) throws {
        let entries = configuration.servers
        guard let firstClient = clients.first, clients.count == max(1, entries.count) else {
            throw RuntimeFailure(message: "\(clients.count) WinPower clients for \(max(1, entries.count)) servers")
        }
        self.configuration = configuration
        self.logger = logger
        let running = RunningConfiguration(configuration)
        self.running = running
        self.clientFactory = clientFactory
        let applier = ReloadApplier<C>()
        reloader = ConfigReloader(load: reload ?? { throw ReloadUnavailable() },
                                  apply: { next in try await applier.apply(next) },
                                  logger: logger.child(label: "reload"), now: wallClock)
        let storage = ExporterSettings.storage(configuration.storage)
        store = try FileEnergyStore(configuration: storage, logger: logger.child(label: "storage"), now: wallClock)
        let graceful = configuration.scheduler.gracefulShutdownTimeout
        do {
            meter = try Self.openMeter(configuration, storage: storage, store: store, clock: clock, logger: logger)
        } catch {
            store.close()
            throw error
        }
        let meter = self.meter
        let scrape = try ScrapeMetrics(build: .current)
        self.scrape = scrape
        try reloader.register(in: scrape.registry)
        var endpoints: Endpoints
        if entries.isEmpty {
            let collectorConfiguration = ExporterSettings.collector(configuration)
            let collector = WPCollector.WinPowerCollector(configuration: collectorConfiguration, client: firstClient, meter: meter,
                                                  clock: clock, wallClock: wallClock, logger: logger.child(label: "collector"))
            primary = ServerPipeline(name: "", labels: [], collector: collector,
                                     interval: configuration.scheduler.collectionInterval,
                                     gracefulShutdownTimeout: graceful, clock: clock,
                                     logger: logger.child(label: "scheduler"), published: afterCollection)
            merger = nil
            fleet = nil
            applier.singleClient = firstClient
            endpoints = Endpoints(snapshot: { collector.snapshot }, health: { collector.health },
                                  sinceLastSuccess: { collector.timeSinceLastSuccess() },
                                  stalenessWindow: collectorConfiguration.stalenessWindow,
                                  target: collectorConfiguration.target, version: BuildInfo.exporterVersion,
                                  metricsPath: configuration.server.metricsPath, startedAt: wallClock(), now: wallClock,
                                  scrape: scrape)
        } else {
            let holder = FleetHolder<C>()
            let merger = ExpositionMerger(spacing: mergeSpacing, clock: clock, parts: {
                (holder.fleet?.pipelines ?? []).map { $0.collector.snapshot.chunks }
                    + [WPCollector.WinPowerCollector<C>.processWideChunks(meter)]
            }, afterMerge: afterCollection)
            self.merger = merger
            let makeMember: MemberFactory = { entry, client, configuration in
                let collector = WPCollector.WinPowerCollector(
                    configuration: ServerPipeline<C>.collectorConfiguration(entry, configuration), client: client,
                    meter: meter, clock: clock, wallClock: wallClock,
                    logger: logger.child(label: "collector", fields: ["server": .string(entry.name)]))
                let pipeline = ServerPipeline(
                    name: entry.name, labels: ServerPipeline<C>.seriesLabels(entry), collector: collector,
                    interval: collector.configuration.interval, gracefulShutdownTimeout: graceful, clock: clock,
                    logger: logger.child(label: "scheduler", fields: ["server": .string(entry.name)]),
                    published: merger.publisher())
                return ServerFleet<C>.Member(entry: entry, interval: collector.configuration.interval, pipeline: pipeline)
            }
            let fleet = ServerFleet<C>(members: zip(entries, clients).map { makeMember($0, $1, configuration) })
            holder.fleet = fleet
            self.fleet = fleet
            primary = fleet.pipelines[0]
            merger.publish()
            let first = primary.collector
            endpoints = Endpoints(snapshot: { merger.snapshot }, health: { first.health },
                                  sinceLastSuccess: { first.timeSinceLastSuccess() },
                                  stalenessWindow: first.configuration.stalenessWindow,
                                  target: "\(entries.count) servers", version: BuildInfo.exporterVersion,
                                  metricsPath: configuration.server.metricsPath, startedAt: wallClock(), now: wallClock,
                                  scrape: scrape)
            endpoints.mergedBodyParts = { merger.bodyParts(of: $0, openMetrics: $1) }
            endpoints.serverViews = {
                fleet.pipelines.map { pipeline in
                    let collector = pipeline.collector
                    return ServerView(name: pipeline.name, labels: pipeline.labels, target: collector.configuration.target,
                                      snapshot: { collector.snapshot }, health: { collector.health },
                                      sinceLastSuccess: { collector.timeSinceLastSuccess() },
                                      stalenessWindow: collector.configuration.stalenessWindow)
                }
            }
            applier.fleet = fleet
            applier.makeMember = makeMember
            applier.merger = merger
            applier.meter = meter
        }
        endpoints.reloader = reloader
        endpoints.lifecycleEnabled = configuration.server.enableLifecycle
        applier.running = running
        applier.clientFactory = clientFactory
        let endpointsInUse = endpoints
        self.endpoints = endpointsInUse
        var serverConfiguration = ExporterSettings.server(configuration)
        serverConfiguration.tls = webSecurity.tls
        isSecure = webSecurity.tls != nil
        server = HTTPServer(configuration: serverConfiguration, handler: endpointsInUse.makeHandler(security: webSecurity),
                            logger: logger.child(label: "http"), observer: scrape)
        do {
            pushLoop = try PushgatewayClient.exporterClient(configuration.push).map { client in
                PushLoop(client: client, interval: configuration.push.interval, clock: clock,
                         logger: logger.child(label: "push")) { endpointsInUse.textExposition() }
            }
        } catch {
            store.close()
            throw error
        }
    }

    /// Opens the shared meter; with `servers`, moves stored totals as ``EnergyMigration`` says
    /// and warns about unqualified totals no entry adopts.
    private static func openMeter(_ configuration: ExporterConfiguration, storage: StorageConfiguration,
                                  store: FileEnergyStore, clock: C, logger: Logger) throws -> EnergyMeter<C> {
        let energy = ExporterSettings.energy(configuration.energy)
        let energyLogger = logger.child(label: "energy")
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

    /// Binds, then collects and serves until `shutdown` returns (or the task is cancelled);
    /// then stops ticking, lets work in flight finish, stops recording energy, saves the totals
    /// (waiting up to ``finalSaveTimeout``) and releases the lock.
    ///
    /// Only `shutdown` (or cancellation) stops the exporter: a part that ends on its own (the
    /// scheduler, the reload stream, the push loop) is logged as an error and the rest runs on.
    ///
    /// - Parameters:
    ///   - onListening: called once with the bound address (the real port when 0 was set).
    ///   - reloadRequests: one element per SIGHUP; each reloads the configuration.
    ///   - shutdown: returns when the exporter should stop (a signal); must end on cancellation.
    /// - Throws: `HTTPServerError.bind` naming the address and reason when it cannot listen.
    package func run(onListening: @escaping @Sendable (ServerAddress) async -> Void,
             reloadRequests: AsyncStream<Void>? = nil,
             until shutdown: @escaping @Sendable () async -> Void) async throws {
        do {
            try await serve(onListening: onListening, reloadRequests: reloadRequests, until: shutdown)
        } catch {
            await finish()
            throw error
        }
        await finish()
    }

    /// The parts ``run(onListening:reloadRequests:until:)`` runs as child tasks.
    package enum Part: String, Sendable {
        case httpServer = "the HTTP server"
        case collection = "collection"
        case merger = "the exposition merger"
        case push = "the Pushgateway push loop"
        case reloads = "the reload signal watcher"
        case shutdownTrigger = "the shutdown trigger"
    }

    private func serve(onListening: @escaping @Sendable (ServerAddress) async -> Void,
                       reloadRequests: AsyncStream<Void>?,
                       until shutdown: @escaping @Sendable () async -> Void) async throws {
        let (server, fleet, primary, logger, pushLoop, reloader) = (self.server, self.fleet, self.primary, self.logger,
                                                                    self.pushLoop, self.reloader)
        let merger = self.merger
        try await withThrowingTaskGroup(of: Part.self) { group in
            group.addTask {
                try await server.run()
                return .httpServer
            }
            do {
                let address = try await server.waitUntilListening()
                if let fleet {
                    if let merger { group.addTask { await merger.run(); return .merger } }
                    group.addTask { await fleet.run(); return .collection }
                } else {
                    group.addTask { await primary.scheduler.run(); return .collection }
                }
                if let pushLoop { group.addTask { await pushLoop.run(); return .push } }
                if let reloadRequests {
                    group.addTask {
                        for await _ in reloadRequests { _ = await reloader.reload(trigger: "SIGHUP") }
                        return .reloads
                    }
                }
                await onListening(address)
            } catch {
                group.cancelAll()
                throw error
            }
            group.addTask {
                await shutdown()
                return .shutdownTrigger
            }
            do {
                while let ended = try await group.next(), ended != .shutdownTrigger, !Task.isCancelled {
                    logger.error("\(ended.rawValue) stopped on its own; the exporter runs on without it "
                                 + "until it is stopped", ["part": .string("\(ended)")])
                }
            } catch {
                group.cancelAll()
                throw error
            }
            logger.info("shutting down", ["graceful_timeout": .string("\(configuration.scheduler.gracefulShutdownTimeout)")])
            group.cancelAll()
            try await group.waitForAll()
        }
    }

    /// How long shutdown waits for the final save of the energy totals (a second signal exits
    /// at once instead).
    package static var finalSaveTimeout: Duration { .seconds(30) }

    /// Stops recording, saves the totals within ``finalSaveTimeout`` and releases the data
    /// directory. A collection that outlived the graceful timeout can no longer record.
    private func finish() async {
        meter.close()
        do {
            try await meter.save(timeout: Self.finalSaveTimeout)
            logger.info("energy persisted", ["devices": .int(meter.totals.count)])
        } catch {
            logger.error("could not persist energy on shutdown", ["error": .string("\(error)")])
        }
        store.close()
    }

    /// Saves the energy totals, waiting at most `timeout` (a second signal, before exiting
    /// with status 1: the state file is replaced atomically, so a save cut short loses only
    /// itself). Blocks the calling thread: call it from a signal handler's thread, never from
    /// the Swift concurrency pool.
    ///
    /// - Returns: whether the totals are safe on disk.
    @discardableResult
    package func persist(timeout: Duration?) -> Bool {
        do {
            try meter.flush(timeout: timeout)
            return true
        } catch {
            logger.error("could not persist energy", ["error": .string("\(error)")])
            return false
        }
    }

    /// Persists energy and releases the data directory, for an exporter that never ran
    /// (``run(onListening:reloadRequests:until:)`` does this itself on its way out).
    package func close() {
        meter.close()
        if persist(timeout: Self.finalSaveTimeout) { logger.info("energy persisted", ["devices": .int(meter.totals.count)]) }
        store.close()
    }
}

/// The configuration in effect, shared with the reloader.
package final class RunningConfiguration: Sendable {
    private let state: Mutex<ExporterConfiguration>
    package init(_ configuration: ExporterConfiguration) { state = Mutex(configuration) }
    package var value: ExporterConfiguration {
        get { state.withLock { $0 } }
        set { state.withLock { $0 = newValue } }
    }
}

/// The exporter was built without a way to load its configuration again.
package struct ReloadUnavailable: Error, CustomStringConvertible {
    package var description: String { "this exporter was started without a configuration to reload" }
}
