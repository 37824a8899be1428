import FoundationEssentials
import WPClient
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
        RunHooks(server: { try await server($0) }, demo: { try await demo($0) }, simulate: { try await simulate($0) })
    }

    /// `wpexporter server`.
    func server(_ loaded: LoadedConfiguration) async throws {
        let configuration = loaded.configuration
        let logger = try makeLogger(configuration)
        let client = WinPowerHTTPClient(configuration: try ExporterSettings.client(configuration.winPower),
                                        logger: logger.child(label: "client"))
        let file = loaded.configurationFile ?? CommandLineTool.noFile
        logger.info("configuration loaded", ["file": .string(file)])
        try await run(configuration, client: client, logger: logger) { address, exporter in
            // Standard error: standard output may carry JSON log lines that parsers expect alone.
            output.standardError("wpexporter \(BuildInfo.exporterVersion) exporting from \(ExporterSettings.target(configuration.winPower.baseURL))\n"
                                  + "configuration file: \(file)\n"
                                  + "metrics: \(Self.url(address, configuration.server.metricsPath, secure: exporter.isSecure))\n")
        }
    }

    /// Builds the exporter and runs it until the first signal; a second signal persists
    /// energy and exits at once with status 1.
    /// `waitForStop` is the signal watcher to use, started now when not given.
    func run(_ configuration: ExporterConfiguration, client: any WinPowerClient, logger: Logger,
             waitForStop: ProcessControls.StopWaiter? = nil,
             onListening: @escaping @Sendable (ServerAddress, Exporter<ContinuousClock>) async -> Void) async throws {
        let waitForStop = waitForStop ?? controls.watchStopSignals()
        let security = try loadWebSecurity(path: configuration.server.webConfigFile)
        for warning in security.warnings { output.standardError("warning: \(warning)\n") }
        let exporter = try SettingError.namingDataDirectory {
            try Exporter(configuration: configuration, client: client, clock: ContinuousClock(),
                         wallClock: { Date() }, logger: logger, webSecurity: security)
        }
        let controls = self.controls
        try await exporter.run(onListening: { address in
            logger.info("exporter listening", ["address": .string(address.description)])
            await onListening(address, exporter)
        }, until: {
            await waitForStop {
                logger.warn("second signal: persisting energy and exiting now")
                exporter.persist()
                controls.exit(1)
            }
        })
    }

    /// Builds the root logger with the WinPower password registered as a secret.
    func makeLogger(_ configuration: ExporterConfiguration) throws -> Logger {
        let redactor = Redactor()
        if let password = configuration.winPower.password, !password.isEmpty { redactor.register(password.reveal()) }
        return try SettingError.namingLogFile(configuration.logging) {
            try ExporterSettings.logging(configuration.logging).makeLogger(label: "wpexporter", redactor: redactor)
        }
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

    /// `wpexporter simulate`.
    func simulate(_ options: SimulatorOptions) async throws {
        var configuration = WinPowerSimulator.Configuration()
        for entry in options.faults {
            do {
                configuration.faults.formUnion(try WinPowerSimulator.Fault.parseList(entry))
            } catch {
                throw UsageError(command: "simulate", message: "--fault: \(error)")
            }
        }
        for entry in options.outageSchedule {
            do {
                configuration.outageSchedule += try OutageWindow.parseList(entry)
            } catch {
                throw UsageError(command: "simulate", message: "--outage-schedule: \(error)")
            }
        }
        configuration.deviceCount = options.devices
        configuration.pageSizeCap = options.pageSize
        configuration.tokenLifetime = options.tokenLifetime
        configuration.tokenExpInMilliseconds = options.tokenExpInMilliseconds
        configuration.clockSkew = options.clockSkew
        configuration.username = options.username
        configuration.password = options.password.reveal()
        let waitForStop = controls.watchStopSignals()
        let simulator = WinPowerSimulator(configuration: configuration)
        let server = SimulatorServer(simulator: simulator, host: options.host, port: options.port)
        let address = try await server.start()
        let faults = configuration.faults.map(\.rawValue).sorted()
        output.standardOutput("WinPower simulator on \(Self.url(address)) with \(options.devices) devices, "
                              + "pages of at most \(options.pageSize); user \"\(options.username)\""
                              + (faults.isEmpty ? "" : "; faults: \(faults.joined(separator: ", "))")
                              + (configuration.outageSchedule.isEmpty ? ""
                                 : "; outages: \(configuration.outageSchedule.map(\.description).joined(separator: ", "))")
                              + "\n")
        let controls = self.controls
        await waitForStop { controls.exit(1) }
        await server.stop()
    }
}
