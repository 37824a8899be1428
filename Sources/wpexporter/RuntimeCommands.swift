import FoundationEssentials
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import WPClient
import WPExporter
import WPConfig
import WPLogging
import WPServer
import WPSimulator

/// The `server`, `demo` and `simulate` commands: builds the runtime from a loaded
/// configuration and runs it until a stop signal.
struct RuntimeCommands: Sendable {
    var output: TerminalOutput
    var controls: ProcessControls

    /// The hooks for ``CommandLineTool``.
    var hooks: RunHooks {
        RunHooks(server: { try await server($0) }, demo: { try await demo($0, servers: $1) }, simulate: { try await simulate($0) })
    }

    /// Runs `body`, then closes `logger`'s sink on a thread of its own however `body` ended.
    static func closingLog(_ logger: WPLogger, _ body: () async throws -> Void) async throws {
        do {
            try await body()
        } catch {
            await logger.sink.closeOffThePool()
            throw error
        }
        await logger.sink.closeOffThePool()
    }

    /// `wpexporter server`.
    func server(_ loaded: LoadedConfiguration) async throws {
        let configuration = loaded.configuration
        // A format left at its default writes for people on a terminal (console), JSON elsewhere.
        let logger = try makeLogger(configuration, formatIsDefault: loaded.settings["logging.format"].map {
            $0.source == .defaultValue
        } ?? true)
        // Waits (up to 1 s) for log lines still queued for standard output, then closes a log
        // file: off Swift's pool, however the run ends.
        try await Self.closingLog(logger) {
            let file = loaded.configurationFile ?? CommandLineTool.noFile(searched: loaded.reloadInputs?.searchPaths() ?? [])
            logger.info("configuration loaded", ["file": .string(file)])
            let source = configuration.servers.isEmpty ? ExporterSecrets.target(configuration.winPower.baseURL)
                : "\(configuration.servers.count) WinPower servers (" + configuration.servers.map(\.name).joined(separator: ", ") + ")"
            let reload = loaded.reloadInputs.map { Self.reloadFunction($0, logger: logger) }
            try await run(configuration, logger: logger, reload: reload,
                          reloadRequests: controls.watchReloadSignals()) { address, exporter in
                // Standard error: standard output may carry JSON log lines that parsers expect alone.
                output.standardError("wpexporter \(BuildInfo.exporterVersion) exporting from \(source)\n"
                                      + "configuration file: \(file)\n"
                                      + "metrics: \(Self.url(address, configuration.server.metricsPath, secure: exporter.isSecure))\n")
            }
        }
    }

    /// Builds the exporter and runs it until the first signal; a second signal persists
    /// energy (waiting at most half a second for the disk) and exits with status 1.
    /// `waitForStop` is the signal watcher to use, started now when not given.
    /// `reload` and `reloadRequests` (SIGHUP) make the configuration reloadable (`server` only).
    func run(_ configuration: ExporterConfiguration, logger: WPLogger,
             reload: ConfigReloader.Load? = nil, reloadRequests: AsyncStream<Void>? = nil,
             waitForStop: ProcessControls.StopWaiter? = nil,
             onListening: @escaping @Sendable (ServerAddress, Exporter<ContinuousClock>) async -> Void) async throws {
        let waitForStop = waitForStop ?? controls.watchStopSignals()
        let security = try WebSecurity.load(path: configuration.server.webConfigFile)
        for warning in security.warnings { output.standardError("warning: \(warning)\n") }
        // The binary's records carry the bare component names (docs/logging.md: `collector`,
        // `client`, …); the exporter's own records keep the label `wpexporter`.
        var options = Exporter.Options(
            clock: ContinuousClock(), logger: logger,
            webSecurity: security, reload: reload, afterCollection: { MemoryTrim.afterCollection() })
        options.componentLabels = .bare
        let exporter = try Exporter(configuration: configuration, options: options)
        let controls = self.controls
        try await exporter.run(onListening: { address in
            logger.info("exporter listening", ["address": .string(address.description)])
            await onListening(address, exporter)
        }, reloadRequests: reloadRequests, until: {
            await waitForStop {
                logger.warn("second signal: persisting energy (waiting at most 0.5 s) and exiting now")
                exporter.persist(timeout: .milliseconds(500))
                _ = logger.sink.flush(timeout: .milliseconds(250))
                controls.exit(1)
            }
        })
    }

    /// Loads the configuration again from `inputs`, registering every password it holds as a
    /// secret of `logger` (a rotated password is masked like the first one).
    static func reloadFunction(_ inputs: ConfigurationInputs, logger: WPLogger) -> ConfigReloader.Load {
        return {
            var inputs = inputs
            inputs.today = ConfigurationInputs.day(of: Date())
            let next = try ConfigurationLoader.load(inputs)
            ExporterSecrets.register(next.configuration, in: logger.redactor)
            return next
        }
    }

    /// Builds the root logger with every password of the configuration registered as a secret.
    func makeLogger(_ configuration: ExporterConfiguration, formatIsDefault: Bool = false) throws -> WPLogger {
        try ExporterSecrets.logger(for: configuration, label: "wpexporter", formatIsDefault: formatIsDefault,
                                   isTerminal: { isatty($0) == 1 })
    }

    /// `http://host:port/path` (`https` when `secure`), with a wildcard bind address shown as
    /// `localhost`.
    static func url(_ address: ServerAddress, _ path: String = "", secure: Bool = false) -> String {
        let host: String
        switch address.host {
        case "0.0.0.0", "::", "": host = "localhost"
        default: host = address.host.contains(":") ? "[\(address.host)]" : address.host
        }
        return "\(secure ? "https" : "http")://\(host):\(address.port)\(path)"
    }
}
