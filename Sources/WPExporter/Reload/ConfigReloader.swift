import FoundationEssentials
import Synchronization
public import WPConfig
package import WPLogging
package import WPMetrics
package import WPWallClock

/// Re-reads the configuration on SIGHUP or `POST /-/reload` and hands a valid one to the
/// running exporter; a configuration that does not load keeps the running one.
///
/// The configuration is read from the same file, environment and flags as at startup (a
/// password file is read again, so rotated credentials are picked up). Reloads never overlap:
/// a trigger arriving during a reload waits for it, then reloads again. The outcome is exported
/// as `winpower_exporter_config_last_reload_successful` and
/// `winpower_exporter_config_last_reload_success_timestamp_seconds` (as Prometheus names its
/// own), logged, and shown in `/health`.
///
/// An embedder gives the exporter the way to read its configuration again
/// (``Exporter/Options/reload``) and asks for a reload through ``Exporter/reload(trigger:)``:
///
/// ```swift
/// var options = Exporter<ContinuousClock>.Options(logger: logger)
/// options.reload = { try ConfigurationLoader.load(inputs) }   // the startup's file, environment, flags
/// let exporter = try Exporter(configuration: loaded.configuration, options: options)
/// let outcome = await exporter.reload(trigger: "SIGHUP")
/// ```
public final class ConfigReloader: Sendable {
    /// What the running exporter did with a new configuration.
    public struct Applied: Sendable, Equatable {
        /// One line for the log and the HTTP answer, e.g. `servers: added b; 1 unchanged`.
        public var summary: String
        /// Sections that changed but take effect only after a restart (their running values
        /// are kept).
        public var needsRestart: [String] = []
        /// What the reload could not do as the file says, or left behind (energy totals not
        /// moved, totals stored but no longer exported): in the log, the HTTP answer and
        /// `/health`.
        public var warnings: [String] = []

        /// Creates the account of an applied configuration.
        public init(summary: String, needsRestart: [String] = [], warnings: [String] = []) {
            self.summary = summary
            self.needsRestart = needsRestart
            self.warnings = warnings
        }
    }

    /// The result of one reload.
    public enum Outcome: Sendable, Equatable {
        /// The new configuration is running: what changed, and what did not.
        case applied(Applied)
        /// The new configuration did not load, or could not be applied; the running one is kept.
        case rejected(String)
    }

    /// The last reload, for `/health` and the metrics.
    package struct Status: Sendable, Equatable {
        /// Whether the last reload applied (true before any reload: the startup load counts).
        var lastSuccessful = true
        /// When the configuration was last loaded successfully (startup or reload).
        var lastSuccess: Date
        /// Why the last reload failed; `nil` once one succeeds.
        var lastError: String?
        /// The last applied reload's warnings (``Applied/warnings``).
        var lastWarnings: [String] = []
        /// Reloads attempted since start.
        var attempts = 0
    }

    /// Loads the configuration again, from the startup file, environment and flags; throws when it
    /// does not load.
    public typealias Load = @Sendable () throws -> LoadedConfiguration
    package typealias Apply = @Sendable (ExporterConfiguration) async throws -> Applied

    private let load: Load?
    private let apply: Apply
    private let logger: WPLogger
    private let wallClock: WallClock
    /// Told every outcome, after it is logged (the exporter tells its front ends).
    private let observe: @Sendable (Outcome) -> Void
    private let state: Mutex<Status>
    /// The reload in progress or last started; the next one waits for it.
    private let tail = Mutex<Task<Void, Never>?>(nil)

    /// - Parameters:
    ///   - load: reads and validates the configuration again (throws `ConfigurationError`);
    ///     `nil` when the exporter cannot reload (each reload is then refused, saying so).
    ///   - apply: applies a valid configuration to the running exporter.
    ///   - logger: where outcomes are logged.
    ///   - wallClock: the time of day of the last success and of each attempt.
    ///   - observe: told each outcome once logged.
    package init(load: Load?, apply: @escaping Apply, logger: WPLogger, wallClock: WallClock,
                 observe: @escaping @Sendable (Outcome) -> Void = { _ in }) {
        self.load = load
        self.apply = apply
        self.logger = logger
        self.wallClock = wallClock
        self.observe = observe
        state = Mutex(Status(lastSuccess: wallClock.now))
    }

    /// The last reload's outcome.
    package var status: Status { state.withLock { $0 } }

    /// Reloads once, after any reload already running.
    ///
    /// - Parameter trigger: what asked for it (`SIGHUP`, `POST /-/reload`), for the log.
    package func reload(trigger: String) async -> Outcome {
        await serialized { [self] in await perform(trigger: trigger, given: nil).outcome }
    }

    /// Applies `configuration` as a reload does (after any reload already running; logged,
    /// counted and shown in `/health` the same way), without loading anything.
    ///
    /// - Throws: ``ReloadRefusal`` when it could not be applied (nothing changed).
    package func apply(_ configuration: ExporterConfiguration, trigger: String) async throws(ReloadRefusal) -> Applied {
        let result = await serialized { [self] in await perform(trigger: trigger, given: configuration).result }
        return try result.get()
    }

    /// Runs `body` once every reload started before it has finished; detached, so the
    /// configuration file is never read on the HTTP event loop that runs `/-/reload`.
    private func serialized<T: Sendable>(_ body: @escaping @Sendable () async -> T) async -> T {
        let task = tail.withLock { tail -> Task<T, Never> in
            let previous = tail
            let next = Task.detached {
                await previous?.value
                return await body()
            }
            tail = Task { _ = await next.value }
            return next
        }
        return await task.value
    }

    /// Loads (unless `given`) and applies once: the outcome as the log and `/health` say it,
    /// and as the API answers it.
    private func perform(trigger: String, given: ExporterConfiguration?)
        async -> (outcome: Outcome, result: Result<Applied, ReloadRefusal>) {
        let outcome: Outcome
        var result: Result<Applied, ReloadRefusal> = .failure(.unavailable)
        do {
            let loaded: LoadedConfiguration
            if let given {
                loaded = LoadedConfiguration(configuration: given)
            } else {
                guard let load else { throw ReloadRefusal.unavailable }
                loaded = try load()
            }
            for warning in loaded.warnings {
                logger.warn("configuration warning", ["warning": .string("\(warning)")])
            }
            do {
                // A file was checked as it was loaded; a configuration built in code is checked here.
                if given != nil {
                    let problems = loaded.configuration.problems()
                    if !problems.isEmpty { throw ReloadRefusal.invalid(problems) }
                }
                let applied = try await apply(loaded.configuration)
                result = .success(applied)
                outcome = .applied(applied)
            } catch let refusal as ReloadRefusal {
                result = .failure(refusal)
                if case .energyFrom(let problems) = refusal {
                    outcome = .rejected(problems.located(in: given == nil ? loaded : nil))
                } else {
                    outcome = .rejected("\(refusal)")
                }
            }
        } catch {
            outcome = .rejected("\(error)")
        }
        let at = wallClock.now
        state.withLock { status in
            status.attempts += 1
            switch outcome {
            case .applied(let applied):
                status.lastSuccessful = true
                status.lastSuccess = at
                status.lastError = nil
                status.lastWarnings = applied.warnings
            case .rejected(let reason):
                status.lastSuccessful = false
                status.lastError = reason
            }
        }
        switch outcome {
        case .applied(let applied):
            logger.info("configuration reloaded", ["trigger": .string(trigger), "changes": .string(applied.summary)])
            if !applied.needsRestart.isEmpty {
                logger.warn("changed settings take effect only after a restart; the running values are kept",
                            ["sections": .string(applied.needsRestart.joined(separator: ","))])
            }
            for warning in applied.warnings {
                logger.warn("configuration reloaded with a warning", ["warning": .string(warning)])
            }
        case .rejected(let reason):
            logger.error("configuration reload failed; keeping the running configuration",
                         ["trigger": .string(trigger), "error": .string(reason)])
        }
        observe(outcome)
        return (outcome, result)
    }

    /// Registers the two reload gauges in `registry` (read at each scrape).
    package func register(in registry: MetricRegistry) throws(MetricsError) {
        try registry.gaugeFunc(name: "winpower_exporter_config_last_reload_successful",
                               help: "Whether the last configuration reload succeeded (1 before any reload).") { [self] in
            status.lastSuccessful ? 1 : 0
        }
        try registry.gaugeFunc(name: "winpower_exporter_config_last_reload_success_timestamp_seconds",
                               help: "Unix time of the last successful configuration load (startup or reload).") { [self] in
            status.lastSuccess.timeIntervalSince1970
        }
    }

    /// The sections of `next` that differ from `running` and are not applied while running:
    /// `server`, `storage`, `scheduler.graceful_shutdown_timeout`, `energy` (but its tariffs) and
    /// `logging`. The servers, the collection interval and the front ends' sections (the cost
    /// counters' `energy.tariffs` among them) are applied.
    ///
    /// Without a listener of its own (``Exporter/runCollection(reloadRequests:until:)``, or
    /// before ``Exporter/run(onListening:reloadRequests:until:)``), the listener's settings
    /// (`server.host`, `port`, `read_timeout`, `write_timeout`, `web_config_file`) are used by
    /// nothing: changing them needs no restart; what the router uses (`metrics_path`,
    /// `enable_lifecycle`, `enable_pprof`) still does.
    package static func sectionsNeedingRestart(running: ExporterConfiguration, next: ExporterConfiguration,
                                               ownListener: Bool = true) -> [String] {
        var sections: [String] = []
        if ownListener ? running.server != next.server : routed(running.server) != routed(next.server) {
            sections.append("server")
        }
        if running.storage != next.storage { sections.append("storage") }
        if running.scheduler.gracefulShutdownTimeout != next.scheduler.gracefulShutdownTimeout {
            sections.append("scheduler.graceful_shutdown_timeout")
        }
        // `energy.tariffs` is the cost counters' section: a reload makes them again (new prices
        // from then on; another currency starts the costs again).
        var (runningEnergy, nextEnergy) = (running.energy, next.energy)
        nextEnergy.tariffs = runningEnergy.tariffs
        if runningEnergy != nextEnergy { sections.append("energy") }
        if running.logging != next.logging { sections.append("logging") }
        // The front ends' sections (`nut`, `snmp`, `push`, `history`, `energy.tariffs`) are
        // applied: a changed one restarts its front end (``FrontEndList``).
        return sections
    }

    /// `next` with what ``sectionsNeedingRestart(running:next:ownListener:)`` names kept as
    /// `running` has it: the configuration in effect once `next` is applied.
    package static func applicable(running: ExporterConfiguration, next: ExporterConfiguration,
                                   ownListener: Bool = true) -> ExporterConfiguration {
        var applied = next
        for section in sectionsNeedingRestart(running: running, next: next, ownListener: ownListener) {
            switch section {
            case "server": applied.server = running.server
            case "storage": applied.storage = running.storage
            case "scheduler.graceful_shutdown_timeout":
                applied.scheduler.gracefulShutdownTimeout = running.scheduler.gracefulShutdownTimeout
            case "energy":
                applied.energy = running.energy
                applied.energy.tariffs = next.energy.tariffs
            case "logging": applied.logging = running.logging
            default: break
            }
        }
        return applied
    }

    /// The `server` settings the router uses (the rest are the listener's).
    private static func routed(_ server: ExporterConfiguration.Server) -> [String] {
        [server.metricsPath, "\(server.enableLifecycle)", "\(server.enablePprof)"]
    }
}
