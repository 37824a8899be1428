public import FoundationEssentials
import Synchronization
package import WPClient
package import WPCollector
public import WPConfig
package import WPEnergy
public import WPFrontEnd
package import WPHTTPClient
public import WPLogging
public import WPMetrics
package import WPNUTFrontEnd
public import WPServer
package import WPSNMPFrontEnd
package import WPStatusPage
package import WPStorage
import WPHistory
import WPMQTTFrontEnd
import WPNotifications
public import WPWallClock

/// Makes the WinPower client of a server: a `servers` entry, or for a `winpower`-only
/// configuration the entry ``Exporter/singleServerEntry(_:)`` (empty name). Called at start
/// and for each server a reload adds or changes.
package typealias ClientFactory = @Sendable (ServerEntry) throws -> any WinPowerClient

/// The running exporter: energy store, meter, one collector and scheduler per WinPower server
/// (`ServerPipeline`), the merged exposition, the HTTP endpoints, the push loop and
/// configuration reloads, composed from one `ExporterConfiguration`.
///
/// One composition serves both shapes of the configuration: a `winpower`-only configuration is
/// a fleet of one server without a name (its `/metrics` is that collector's own pre-rendered
/// snapshot, byte for byte what it always was), `servers` a fleet of named servers whose
/// expositions are merged. A reload may switch between the two (``apply(_:)``).
///
/// Creating it takes the data directory's lock and loads the stored energy;
/// ``run(onListening:reloadRequests:until:)`` binds, collects and serves until `shutdown`
/// returns, then lets the collection and scrapes in flight finish within
/// `scheduler.graceful_shutdown_timeout` and persists energy. A service with an HTTP server of
/// its own mounts ``router`` and calls ``runCollection(reloadRequests:until:)`` instead, or
/// puts the WinPower families into its own registry (``register(in:)``; docs/embedding-exporter.md).
///
/// ```swift
/// let exporter = try Exporter(configuration: loaded.configuration, logger: logger)
/// try await exporter.run(onListening: { print("http://\($0)/metrics") }, until: { await stop() })
/// ```
///
/// Tests and simulations pass a clock of their own through ``Options`` (the WinPower clients stay
/// real: point `winpower.base_url` at a simulated server, as WPExporterTesting's
/// `ExporterTestHarness` does):
///
/// ```swift
/// let exporter = try Exporter(configuration: configuration, options: .init(clock: ManualClock(), logger: logger))
/// ```
public final class Exporter<C: Clock>: Sendable where C.Duration == Duration {
    /// How the exporter's components label their log records (``Options/componentLabels``).
    public enum ComponentLabels: Sendable, Equatable {
        /// `label.component` under the given logger's label (just `component` when it is empty).
        case nested
        /// The component's name alone, whatever the given logger's label.
        case bare
    }

    /// What the exporter is built with besides its configuration.
    public struct Options: Sendable {
        /// Drives the schedulers, energy integration and staleness.
        public var clock: C
        /// Timestamps and `/health` ages.
        public var wallClock: WallClock
        /// The root logger: the exporter's own records carry its label, and each component
        /// (`collector`, `client`, `scheduler`, `energy`, `storage`, `http`, `nut`, `push`,
        /// `reload`) logs under a label of its own, nested under it by default
        /// (``ComponentLabels``).
        public var logger: WPLogger
        /// Where the energy totals are kept: `storage.data_dir` (the default), or in memory
        /// only (``EnergyStorage/memory``: tests and previews, no directory created or locked).
        public var energyStorage: EnergyStorage = .dataDirectory
        /// How the HTTP and NUT listeners are made: sockets (the default), or a test's or an
        /// embedder's fakes (``Listeners``).
        public var listeners: Listeners = .sockets
        /// How the components' labels relate to ``logger``'s: nested under it
        /// (`winpower.collector` for a logger labelled `winpower`; the default), or the bare
        /// component names (`collector`), as the command-line tool writes them.
        public var componentLabels: ComponentLabels = .nested
        /// Makes each server's WinPower client; `nil`: real ones (``Exporter/httpClients(logger:threadPool:)``
        /// with the components' logger), as every public initializer does.
        package var makeClient: ClientFactory?
        /// TLS and basic authentication of the listener, from `server.web_config_file`.
        public var webSecurity: WebSecurity
        /// Loads the configuration again (from the startup file, environment and flags) for
        /// SIGHUP and `POST /-/reload`; `nil`: ``reload(trigger:)`` refuses, ``apply(_:)`` works.
        public var reload: ConfigReloader.Load?
        /// The minimum time between two merges of several servers' expositions
        /// (`ExpositionMerger`); zero merges on every publish.
        public var mergeSpacing: Duration
        /// Runs after each published collection (and merge); the command-line tool returns
        /// freed heap memory to the system there.
        public var afterCollection: @Sendable () -> Void
        /// The open-files limit the HTTP and NUT connection caps are fitted into
        /// (`DescriptorBudget`); `nil` for none. By default the soft limit is raised to the
        /// hard limit first, as the HTTP server does.
        public var openFilesLimit: @Sendable () -> Int? = { OpenFilesLimit.raiseToHardLimit() }
        /// How long a collection waits for its energy totals' save before it publishes
        /// (`CollectorConfiguration.saveWait`); tests on loaded machines wait longer.
        package var energySaveWait: Duration = CollectorConfiguration().saveWait
        /// Front ends of the embedder's own, made and run after the exporter's (NUT, SNMP,
        /// push), each from a `FrontEndContext` as theirs are (docs/architecture.md, "Adding
        /// a front end"); none by default.
        public var frontEnds: [FrontEndFactory<C>] = []

        /// Options with real WinPower clients (their HTTP threads one shared pool).
        public init(clock: C, logger: WPLogger,
                    wallClock: WallClock = .system, webSecurity: WebSecurity = .none,
                    reload: ConfigReloader.Load? = nil, mergeSpacing: Duration = .seconds(1),
                    afterCollection: @escaping @Sendable () -> Void = {}) {
            self.clock = clock
            self.logger = logger
            self.makeClient = nil
            self.wallClock = wallClock
            self.webSecurity = webSecurity
            self.reload = reload
            self.mergeSpacing = mergeSpacing
            self.afterCollection = afterCollection
        }

        /// Options whose servers' clients `makeClient` makes (the tests' fakes).
        package init(clock: C, logger: WPLogger, makeClient: @escaping ClientFactory,
                     wallClock: WallClock = .system, webSecurity: WebSecurity = .none,
                     reload: ConfigReloader.Load? = nil, mergeSpacing: Duration = .seconds(1),
                     afterCollection: @escaping @Sendable () -> Void = {}) {
            self.init(clock: clock, logger: logger, wallClock: wallClock, webSecurity: webSecurity, reload: reload,
                      mergeSpacing: mergeSpacing, afterCollection: afterCollection)
            self.makeClient = makeClient
        }
    }

    package let logger: WPLogger
    package let store: any EnergyStore
    package let meter: EnergyMeter<C>
    /// The servers: one unnamed member for `winpower`, one per `servers` entry; reloads change them.
    package let fleet: ServerFleet<C>
    /// Every collection's way to the front ends (``FleetPublication``).
    package let publication: FleetPublication<C>
    /// Merges several servers' expositions into `/metrics` (idle for a single server).
    package let merger: ExpositionMerger<C>
    /// The exporter's own HTTP listener (only ``run(onListening:reloadRequests:until:)`` runs it).
    package let http: HTTPFrontEnd
    package var server: any Listener<ConnectionStatistics> { http.server }
    package let scrape: ScrapeMetrics
    package let endpoints: Endpoints
    /// The front ends besides the HTTP listener (its composition's list, then
    /// ``Options/frontEnds``): made at start, made again by reloads that change their section.
    package let frontEndList: FrontEndList<C>
    /// The front ends besides the HTTP listener now, in the order they start: the NUT server,
    /// the SNMP agent, the push loop, each when configured, then an embedder's.
    package var frontEnds: [any FrontEnd] { frontEndList.frontEnds }
    /// The push loop of `push.url` now, when it is set.
    package var pushLoop: PushLoop<C>? { frontEnds.lazy.compactMap { $0 as? PushLoop<C> }.first }
    /// The NUT server of `nut.listen` now, when it is set.
    package var nut: NUTFrontEnd<C>? { frontEnds.lazy.compactMap { $0 as? NUTFrontEnd<C> }.first }
    package var nutServer: (any Listener<LineServerStatistics>)? { nut?.server }
    /// The SNMP agent of `snmp.listen` now, its notifications and their informs; `nil` when off.
    package var snmp: SNMPService<C>? { frontEnds.lazy.compactMap { $0 as? SNMPService<C> }.first }
    /// The status pages (`/status`, a page per UPS) over the publication, on the HTTP listener:
    /// a front end of the list, always made.
    package var statusPage: StatusPage<C> {
        guard let page = frontEnds.lazy.compactMap({ $0 as? StatusPage<C> }).first else {
            preconditionFailure("the status pages are a front end the list always makes")
        }
        return page
    }
    /// The energy cost of `energy.tariffs` per device and period now; `nil` without a currency.
    package var energyCost: EnergyCostMeter? { frontEnds.energyCostMeter }
    /// Whether the listener speaks TLS (the web configuration file sets it up).
    public let isSecure: Bool
    /// Re-reads the configuration on SIGHUP and `POST /-/reload`.
    package let reloader: ConfigReloader
    /// The configuration in effect (the startup one plus what reloads applied).
    private let running: RunningConfiguration
    private let applier: ReloadApplier<C>
    private let gracefulShutdownTimeout: Duration
    /// Set once ``run(onListening:reloadRequests:until:)`` serves the exporter's own listener.
    private let ownListener = ListenerFlag()

    /// The configuration in effect: the startup one plus what reloads applied.
    public var configuration: ExporterConfiguration { running.value }

    /// One pipeline per server now, in configuration order.
    package var pipelines: [ServerPipeline<C>] { fleet.pipelines }

    /// The first server's collector now (the only one of a `winpower`-only configuration).
    package var collector: WinPowerCollector<C> { fleet.pipelines[0].collector }

    /// The server of a `winpower`-only configuration: `winpower` as a server without a name
    /// (its series carry no `server` label and its energy keys no prefix).
    public static func singleServerEntry(_ configuration: ExporterConfiguration) -> ServerEntry {
        ServerEntry(name: "", winPower: configuration.winPower)
    }

    /// The servers `configuration` describes: its `servers` entries, or ``singleServerEntry(_:)``.
    public static func serverEntries(_ configuration: ExporterConfiguration) -> [ServerEntry] {
        configuration.servers.isEmpty ? [singleServerEntry(configuration)] : configuration.servers
    }

    /// Real WinPower clients over HTTP(S), each with its own token, backoff and timeouts, logging
    /// under `client` (with a `server` field for a `servers` entry).
    ///
    /// The clients of one factory share one thread pool (`threadPool`, by default
    /// ``HTTPClient/ThreadPool/defaultMaxThreads`` threads named `http-client`), each using at
    /// most ``WinPowerHTTPClient/sharedPoolThreads`` of them at once: the threads follow the
    /// requests in flight, not the number of servers.
    package static func httpClients(logger: WPLogger, threadPool: HTTPClient.ThreadPool = HTTPClient.ThreadPool()) -> ClientFactory {
        return { entry in
            let configuration = try ExporterSettings.client(entry.winPower)
            return WinPowerHTTPClient(configuration: configuration,
                                      transport: WinPowerHTTPClient.makeTransport(for: configuration, threadPool: threadPool),
                                      logger: entry.name.isEmpty ? logger.component("client")
                                          : logger.component("client", fields: ["server": .string(entry.name)]))
        }
    }

    /// The exporter's own front ends, in the order they are made and started: the composition's
    /// one list (an embedder's, ``Options/frontEnds``, come after them).
    static func frontEndFactories(listeners: Listeners) -> [FrontEndFactory<C>] {
        [
            // First: the others read its verdicts of the same publication (NUT's RB, SNMP's
            // upsAlarmBatteryBad, the history's and the notifications' events).
            .batteryHealth,
            .nut(makeListener: listeners.nut),
            .snmp,
            .push,
            .history,
            .notifications,
            // Before MQTT: its costs are counted from a publication before MQTT sends them.
            .energyCost,
            .mqtt,
            .statusPage,
        ]
    }

    /// Every configuration key the exporter reads: its own (`ConfigKey.all`), the sections its
    /// front ends declare (`history`), then those of `frontEnds` (an embedder's
    /// ``Options/frontEnds``). Load the configuration with it
    /// (`ConfigurationInputs(…, schema:)`), so a declared section's keys are read from the file,
    /// the environment and flags, listed by `check-config` and checked.
    public static func configurationSchema(adding frontEnds: [FrontEndFactory<C>] = []) -> ConfigSchema {
        (frontEndFactories(listeners: .sockets) + frontEnds).compactMap(\.declares).reduce(ConfigSchema.exporter) { schema, section in
            schema.adding(section)
        }
    }

    /// Builds the exporter: opens the store (taking the data directory's lock) and the energy
    /// meter, makes every server's client and pipeline, the endpoints and the HTTP server.
    /// Nothing runs until ``run(onListening:reloadRequests:until:)`` or
    /// ``runCollection(reloadRequests:until:)``.
    ///
    /// - Parameters:
    ///   - configuration: the validated configuration.
    ///   - options: clock, logger, client factory and the rest (``Options``).
    /// - Throws: ``ExporterError`` naming the key at fault
    ///   (``ExporterError/invalidConfiguration(_:)`` with every problem when the configuration
    ///   breaks the rules a file is checked against); nothing is left open then.
    public init(configuration: ExporterConfiguration, options: Options) throws(ExporterError) {
        let (clock, wallClock, logger) = (options.clock, options.wallClock, options.logger)
        // The components' loggers: nested under the given label, or their bare names.
        let components = options.componentLabels == .nested ? logger : logger.child(label: "")
        let makeClient = options.makeClient ?? Self.httpClients(logger: components)
        let problems = configuration.problems()
        guard problems.isEmpty else { throw .invalidConfiguration(problems) }
        ExporterSecrets.register(configuration, in: logger.redactor)
        self.logger = logger
        // The front ends, made once the store is open; their connections fitted into the
        // open-files limit first (a limit too low to serve leaves the data directory alone).
        let factories = Self.frontEndFactories(listeners: options.listeners) + options.frontEnds
        let openFiles = options.openFilesLimit()
        let budget = try Self.descriptorBudget(configuration, limit: openFiles, factories: factories, logger: logger)
        let running = RunningConfiguration(configuration)
        self.running = running
        gracefulShutdownTimeout = configuration.scheduler.gracefulShutdownTimeout
        // The store: it holds the data directory's lock, released on every failure below.
        let storage = ExporterSettings.storage(configuration.storage)
        let store = try Self.openStore(configuration, storage: storage, options: options, logger: logger, components: components)
        self.store = store
        do throws(ExporterError) {
            // The meter, the fleet and its publication.
            let meter = try Self.openMeter(configuration, storage: storage, store: store, clock: clock, logger: components)
            self.meter = meter
            let fleet = ServerFleet<C>(members: [])
            self.fleet = fleet
            let publication = FleetPublication(fleet: fleet, meter: meter, naming: Self.upsNaming(configuration, store: store),
                                               spacing: options.mergeSpacing, clock: clock,
                                               afterCollection: options.afterCollection)
            self.publication = publication
            merger = publication.merger
            let makeMember = Self.memberFactory(meter: meter, publication: publication, clock: clock, wallClock: wallClock,
                                                logger: components, graceful: gracefulShutdownTimeout,
                                                saveWait: options.energySaveWait)
            fleet.replace(with: try Self.members(configuration, makeMember: makeMember, makeClient: makeClient))
            if !configuration.servers.isEmpty { merger.publish() }
            let scrape = try Self.scrapeMetrics()
            self.scrape = scrape
            // The data directory the front ends and the status page keep files in: the store's.
            let dataDirectory = options.energyStorage.isDataDirectory ? configuration.storage.dataDirectory : nil
            // The front ends: the composition's list, then the embedder's.
            let makeContext = Self.makeContext(publication: publication, scrape: scrape, store: store,
                                               dataDirectory: dataDirectory, factories: factories,
                                               openFiles: openFiles, options: options, running: running,
                                               components: components)
            let frontEndList = try FrontEndList(factories, configuration: configuration, publication: publication,
                                                registry: scrape.registry, makeContext: makeContext)
            self.frontEndList = frontEndList
            // Reloads: the servers, the front ends whose section changed.
            let ownListener = self.ownListener
            let applier = ReloadApplier(running: running, fleet: fleet, publication: publication, meter: meter,
                                        frontEnds: frontEndList, makeMember: makeMember, makeClient: makeClient,
                                        ownListener: { ownListener.isSet })
            self.applier = applier
            reloader = try Self.reloader(options.reload, applier: applier, running: running, scrape: scrape,
                                         logger: logger, components: components, frontEnds: frontEndList, wallClock: wallClock)
            // The HTTP endpoints, with the routes the front ends made at start add (the status pages').
            let endpoints = Self.endpoints(configuration, publication: publication, meter: meter, store: store, scrape: scrape,
                                           reloader: reloader, frontEnds: { frontEndList.frontEnds },
                                           routes: frontEndList.frontEnds.compactMap(\.routes), wallClock: wallClock)
            self.endpoints = endpoints
            http = try Self.httpFrontEnd(configuration, endpoints: endpoints, scrape: scrape, budget: budget,
                                         options: options, logger: components)
            isSecure = options.webSecurity.tls != nil
        } catch {
            store.close()
            throw error
        }
    }

    /// Every endpoint (`/metrics` at `server.metrics_path`, `/health`, `/-/healthy`, `/-/ready`,
    /// `/probe`, `/targets`, `/-/reload`, `/`) as one router, for a service that mounts them on
    /// its own WPServer listener. Requests are counted in `winpower_exporter_requests_total`.
    public var router: WPRouter { endpoints.makeRouter() }

    /// The current `/metrics` snapshot, without the per-scrape families (requests, process,
    /// build information).
    package var snapshot: MetricsSnapshot { endpoints.exposition().snapshot }

    /// The latest collection's exposition as `/metrics` serves it (the merged one for several
    /// servers), without the per-scrape families (requests, `process_*`, build information):
    /// what the command-line tool's `demo` table reads, and a service showing readings of its
    /// own can read too.
    public var latestExposition: LatestExposition {
        let snapshot = self.snapshot
        return LatestExposition(text: snapshot.wholeText, generatedAt: snapshot.generatedAt)
    }

    /// Puts the WinPower families (every family of `/metrics` but `process_*`: the latest
    /// collection's, and the exporter's own per-scrape ones, the reload status, build
    /// information, requests and NUT figures) into a service's own `registry`, which then owns
    /// no other name starting with `winpower_`: an instrument with such a name is refused, and
    /// so is this call when the registry already holds one. The registry's render writes them
    /// from the latest collection (a copy of the pre-rendered bytes; the exporter's own
    /// `/metrics` shares them instead) and the per-scrape ones as they are at the render, and
    /// the OpenMetrics `# EOF` once, after everything.
    ///
    /// - Returns: the registered collector, for `registry.unregister(encoded:)`.
    /// - Throws: `MetricsError.conflictingRegistration` naming the clashing name.
    @discardableResult
    public func register(in registry: MetricRegistry) throws(MetricsError) -> WinPowerFamilies {
        let (endpoints, scrape) = (self.endpoints, self.scrape)
        let families = WinPowerFamilies(snapshot: { endpoints.exposition().snapshot }, perScrape: { scrape.registry.collect() })
        try registry.register(encoded: families)
        return families
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
    /// - Throws: `ServerError.bind` naming the address and reason when it cannot listen;
    ///   ``ExporterError/frontEnd(section:reason:)`` naming the key (`nut.listen: …`) when a
    ///   front end cannot serve;
    ///   ``ExporterError/energyNotSaved(reason:lastSaved:)`` when it stopped but the final save
    ///   of the energy totals failed (the message says where the last saved totals are).
    public func run(onListening: @escaping @Sendable (ServerAddress) async -> Void,
                    reloadRequests: AsyncStream<Void>? = nil,
                    until shutdown: @escaping @Sendable () async -> Void) async throws {
        try await serveThenFinish(listening: onListening, reloadRequests: reloadRequests, until: shutdown)
    }

    /// Like ``run(onListening:reloadRequests:until:)`` without the listener: for a service that
    /// serves ``router`` (or its own registry, ``register(in:)``) itself.
    ///
    /// - Throws: what stopped it before `shutdown` returned, as `run` does: an
    ///   ``ExporterError`` naming the key at fault (`nut.listen` when the NUT port cannot be
    ///   bound), or `CancellationError`; or, once stopped, ``ExporterError/energyNotSaved(reason:lastSaved:)``
    ///   when the final save of the energy totals failed (logged with where the last saved
    ///   totals are). The data directory is released either way.
    public func runCollection(reloadRequests: AsyncStream<Void>? = nil,
                              until shutdown: @escaping @Sendable () async -> Void) async throws {
        try await serveThenFinish(listening: nil, reloadRequests: reloadRequests, until: shutdown)
    }

    /// Serves until `shutdown` (``serve(listening:reloadRequests:until:)``), then saves the
    /// totals and releases the data directory however it ended; throws what stopped it early,
    /// else a failed final save.
    private func serveThenFinish(listening onListening: (@Sendable (ServerAddress) async -> Void)?,
                                 reloadRequests: AsyncStream<Void>?,
                                 until shutdown: @escaping @Sendable () async -> Void) async throws {
        do {
            try await serve(listening: onListening, reloadRequests: reloadRequests, until: shutdown)
        } catch {
            _ = await finish()
            throw error
        }
        if let failure = await finish() { throw failure }
    }

    /// Applies a new configuration to the running exporter, as a reload does (one at a time with
    /// reloads; logged, counted and shown in `/health` like them): servers added,
    /// changed or removed (switching between `winpower` and `servers` included), energy totals
    /// moved by `energy_from`. Sections that cannot change while running are kept and named in
    /// the answer.
    ///
    /// - Returns: what changed, what needs a restart, and warnings.
    /// - Throws: ``ReloadRefusal`` when nothing could be applied (the running configuration
    ///   stays): ``ReloadRefusal/invalid(_:)`` with every problem when `next` breaks the rules a
    ///   configuration file is checked against (`ExporterConfiguration.problems()`).
    public func apply(_ next: ExporterConfiguration) async throws(ReloadRefusal) -> ConfigReloader.Applied {
        try await reloader.apply(next, trigger: "apply")
    }

    /// Loads the configuration again (``Options/reload``) and applies it, logged and counted as a
    /// SIGHUP or `POST /-/reload` is.
    public func reload(trigger: String) async -> ConfigReloader.Outcome {
        await reloader.reload(trigger: trigger)
    }

    /// Runs the core (the collections, the merger, reloads on SIGHUP), then each front end
    /// in turn, the HTTP listener first when the exporter serves its own, each waited for until
    /// it serves; then lets them run until `shutdown` returns.
    private func serve(listening onListening: (@Sendable (ServerAddress) async -> Void)?,
                       reloadRequests: AsyncStream<Void>?,
                       until shutdown: @escaping @Sendable () async -> Void) async throws {
        let (fleet, merger, logger, reloader) = (self.fleet, self.merger, self.logger, self.reloader)
        if onListening != nil { ownListener.set() }
        let (http, list) = (self.http, frontEndList)
        // What ended: a part's name, or nil for the shutdown trigger (or a front end replaced
        // by a reload: its successor runs in the same task).
        try await withThrowingTaskGroup(of: String?.self) { group in
            do {
                if onListening != nil {
                    group.addTask {
                        try await http.run()
                        return http.name
                    }
                    try await http.ready()
                }
                for index in 0..<list.count {
                    group.addTask { try await list.run(index) }
                    // A port that cannot be bound stops the start, naming its key.
                    do {
                        try await list.frontEnd(index)?.ready()
                    } catch let error as FrontEndError {
                        throw ExporterError(error, section: list.section(index))
                    }
                }
                group.addTask { await merger.run(); return "the exposition merger" }
                group.addTask { await fleet.run(); return "collection" }
                if let reloadRequests {
                    group.addTask {
                        for await _ in reloadRequests { _ = await reloader.reload(trigger: "SIGHUP") }
                        return "the reload signal watcher"
                    }
                }
                if let onListening { await onListening(try await http.server.waitUntilListening()) }
            } catch {
                group.cancelAll()
                throw error
            }
            group.addTask {
                await shutdown()
                return nil
            }
            do {
                while let ended = try await group.next(), let part = ended, !Task.isCancelled {
                    logger.error("\(part) stopped on its own; the exporter runs on without it until it is stopped",
                                 ["part": .string(part)])
                }
            } catch {
                group.cancelAll()
                throw error
            }
            logger.info("shutting down", ["graceful_timeout": .string("\(gracefulShutdownTimeout)")])
            group.cancelAll()
            try await group.waitForAll()
        }
    }

    /// How long shutdown waits for the final save of the energy totals (a second signal exits
    /// at once instead).
    public static var finalSaveTimeout: Duration { .seconds(30) }

    /// Stops recording, saves the totals within ``finalSaveTimeout`` and releases the data
    /// directory. A collection that outlived the graceful timeout can no longer record.
    ///
    /// - Returns: `nil` when the totals are saved; otherwise the error to stop with, logged
    ///   with where the last saved totals are (the store's `lastSavedTotals()`).
    private func finish(timeout: Duration = Exporter.finalSaveTimeout) async -> ExporterError? {
        meter.close()
        var failure: ExporterError?
        do {
            try await meter.save(timeout: timeout)
            logger.info("energy persisted", ["devices": .int(meter.totals.count)])
        } catch {
            let reason = "\(error)"
            let lastSaved = store.lastSavedTotals().description
            logger.error("could not persist energy on shutdown: the totals since the last save are lost",
                         ["error": .string(reason), "last_saved_totals": .string(lastSaved),
                          "devices": .int(meter.totals.count)])
            failure = .energyNotSaved(reason: reason, lastSaved: lastSaved)
        }
        store.close()
        await flushLog()
        return failure
    }

    /// `path` made absolute against the working directory.
    package static func absolute(_ path: String) -> String {
        if path.hasPrefix("/") { return path }
        var base = FileManager.default.currentDirectoryPath
        if !base.hasSuffix("/") { base += "/" }
        return base + (path.hasPrefix("./") ? String(path.dropFirst(2)) : path)
    }

    /// How long the way out waits for the log's last lines to leave the process.
    static var logFlushTimeout: Duration { .seconds(2) }

    /// Waits (on a thread of its own, at most ``logFlushTimeout``) until what the exporter
    /// logged has left the process: a sink writing from a background thread would otherwise
    /// lose the last lines ("energy persisted") if the service exits right after `run` returns.
    private func flushLog() async {
        _ = await logger.sink.flushOffThePool(timeout: Self.logFlushTimeout)
    }

    /// Saves the energy totals, waiting at most `timeout` (a second signal, before exiting
    /// with status 1: the state file is replaced atomically, so a save cut short loses only
    /// itself). Blocks the calling thread: call it from a signal handler's thread, never from
    /// the Swift concurrency pool.
    ///
    /// - Returns: whether the totals are safe on disk.
    @discardableResult
    public func persist(timeout: Duration) -> Bool {
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
    ///
    /// Suspends, never blocks its thread: the save runs on the energy writer's thread and this
    /// call waits for it at most `timeout`. A save still running then goes on (the state file is
    /// replaced atomically) and the failure is logged; the data directory is released either way.
    ///
    /// ```swift
    /// let exporter = try Exporter(configuration: configuration, logger: logger)
    /// // ... serve exporter.router, collect ...
    /// await exporter.close()
    /// ```
    ///
    /// - Parameter timeout: how long to wait for the final save; ``finalSaveTimeout`` by default.
    /// - Returns: whether the final save succeeded (a failure is logged with where the last
    ///   saved totals are).
    @discardableResult
    public func close(timeout: Duration = Exporter.finalSaveTimeout) async -> Bool {
        await finish(timeout: timeout) == nil
    }
}

extension Exporter.Options where C == ContinuousClock {
    /// Options on the continuous clock, the one every exporter outside a test runs on, with
    /// real WinPower clients: `Exporter<ContinuousClock>.Options(logger: logger)`.
    public init(logger: WPLogger, wallClock: WallClock = .system,
                webSecurity: WebSecurity = .none, reload: ConfigReloader.Load? = nil,
                mergeSpacing: Duration = .seconds(1), afterCollection: @escaping @Sendable () -> Void = {}) {
        self.init(clock: ContinuousClock(), logger: logger, wallClock: wallClock, webSecurity: webSecurity,
                  reload: reload, mergeSpacing: mergeSpacing, afterCollection: afterCollection)
    }
}

/// The exposition of the latest collection (``Exporter/latestExposition``).
public struct LatestExposition: Sendable {
    /// The Prometheus text format (0.0.4), as `/metrics` serves it before its per-scrape part.
    public let text: [UInt8]
    /// When the collection it shows finished; `nil` before the first.
    public let generatedAt: Date?
}

/// Whether the exporter serves its own listener, read by reloads.
private final class ListenerFlag: Sendable {
    private let value = Atomic(false)
    var isSet: Bool { value.load(ordering: .acquiring) }
    func set() { value.store(true, ordering: .releasing) }
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

/// The WinPower families of an ``Exporter`` in a service's registry
/// (``Exporter/register(in:)``): every family name starting with `winpower_`.
///
/// Besides the latest collection they hold the exporter's own `winpower_` families that its
/// `/metrics` renders per scrape: the reload status
/// (`winpower_exporter_config_last_reload_successful`, `…_success_timestamp_seconds`),
/// `winpower_exporter_build_info`, the requests its router served and, with `nut.listen`, the
/// NUT server's. The `process_*` families are left to the service's own registry.
public final class WinPowerFamilies: EncodedCollector {
    /// `winpower_`: the families this collector encodes all start with it.
    public let namePrefix = "winpower_"
    private let snapshot: @Sendable () -> MetricsSnapshot
    private let perScrape: @Sendable () -> [MetricFamily]

    init(snapshot: @escaping @Sendable () -> MetricsSnapshot, perScrape: @escaping @Sendable () -> [MetricFamily]) {
        self.snapshot = snapshot
        self.perScrape = perScrape
    }

    /// Appends to `bytes`, in `format` and without `# EOF`, the latest collection's families (as
    /// rendered once per collection) and the exporter's own `winpower_` families rendered now.
    public func encode(format: ExpositionFormat, into bytes: inout [UInt8]) {
        let snapshot = self.snapshot()
        bytes += format == .text ? snapshot.wholeText : snapshot.wholeOpenMetrics
        let own = perScrape().filter { $0.name.hasPrefix(namePrefix) }
        ExpositionEncoder(format: format).encode(own, into: &bytes, terminated: false)
    }
}

extension Exporter where C == ContinuousClock {
    /// The exporter on the real clocks with real WinPower clients (`httpClients(logger:threadPool:)`):
    /// the common way to embed it, with no clock to spell.
    ///
    /// ```swift
    /// let exporter = try Exporter(configuration: configuration, logger: logger.child(label: "winpower"))
    /// // records: "winpower" (the exporter's own), "winpower.collector", "winpower.client", …
    /// ```
    ///
    /// - Parameters:
    ///   - configuration: the configuration (checked as a file is, `ExporterConfiguration.problems()`).
    ///   - logger: the root logger; components log under child labels, and every configured
    ///     password becomes a secret of its redactor.
    ///   - webSecurity: TLS and basic authentication of the listener; none by default.
    ///   - reload: what SIGHUP and `POST /-/reload` load again; `nil` by default.
    ///   - afterCollection: called after each published collection.
    /// - Throws: ``ExporterError`` naming the key at fault.
    public convenience init(configuration: ExporterConfiguration, logger: WPLogger, webSecurity: WebSecurity = .none,
                            reload: ConfigReloader.Load? = nil,
                            afterCollection: @escaping @Sendable () -> Void = {}) throws(ExporterError) {
        try self.init(configuration: configuration, options: Options(
            clock: ContinuousClock(), logger: logger, webSecurity: webSecurity, reload: reload,
            afterCollection: afterCollection))
    }
}
