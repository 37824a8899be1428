import FoundationEssentials
import WPConfig
import WPExporter

/// Runs one `wpexporter` invocation: parse, load and validate, then print or call a hook.
///
/// Everything from the process (arguments, environment, files, output streams) comes in
/// through the initializer, so every command is testable without a process.
///
/// ```swift
/// let tool = CommandLineTool(environment: env, files: files, output: output, hooks: hooks)
/// exit(await tool.run(Array(CommandLine.arguments.dropFirst())))
/// ```
struct CommandLineTool: Sendable {
    var environment: [String: String]
    var files: FileAccess
    var output: TerminalOutput
    var hooks: RunHooks
    var buildInfo: BuildInfo = .current

    /// Runs the command and returns the process exit status.
    ///
    /// - Parameter arguments: The arguments without the program name.
    /// - Returns: 0, 1, 64, 74 or 78 (see ``ExitCode``).
    func run(_ arguments: [String]) async -> Int32 {
        do {
            try await execute(try CommandParser.parse(arguments))
            return ExitCode.success.rawValue
        } catch let error as ConfigurationError {
            let file = error.configurationFile ?? error.unreadFile.map { "\($0) (not read)" } ?? noFile
            output.standardError("configuration file: \(file)\n")
            report(error.warnings)
            output.standardError(error.description + "\n")
            let count = error.problems.count
            output.standardError("configuration is invalid: \(count) problem\(count == 1 ? "" : "s")\n")
            return ExitCode.forError(error).rawValue
        } catch {
            output.standardError("\(error)\n")
            return ExitCode.forError(error).rawValue
        }
    }

    /// What `configuration file:` says when no file was read: the paths searched, in order, so
    /// a file mounted where another program looks for it (the Go exporter's image reads
    /// `/app/config.yaml`) is seen to be missed.
    var noFile: String { Self.noFile(searched: ConfigurationInputs(environment: environment, files: files).searchPaths()) }

    /// ``noFile`` for these searched paths (none known: a configuration built in code).
    static func noFile(searched: [String]) -> String {
        searched.isEmpty ? "none (defaults, environment and flags only)"
            : "none found (searched \(searched.joined(separator: ", "))); defaults, environment and flags only"
    }

    private func execute(_ command: Command) async throws {
        switch command {
        case .help(let topic):
            output.standardOutput(HelpText.page(topic))
        case .version(let json):
            output.standardOutput((json ? buildInfo.json : buildInfo.text) + "\n")
        case .checkConfig(let options):
            let loaded = try load(options, purpose: .server)
            // The web configuration file is validated as `server` would, every problem listed.
            let security = try WebSecurity.load(path: loaded.configuration.server.webConfigFile, files: files)
            let file = loaded.configurationFile ?? noFile
            output.standardOutput("configuration file: \(file)\n\n\(loaded.effectiveSettingsTable())\n")
            report(loaded.warnings + security.warnings)
            output.standardOutput("\nconfiguration is valid\n")
        case .server(let options):
            let loaded = try load(options, purpose: .server)
            report(loaded.warnings)
            try await hooks.server(loaded)
        case .demo(let options):
            let loaded = try load(options, purpose: .demo)
            report(loaded.warnings)
            try await hooks.demo(loaded, options.demoServers)
        case .simulate(let options):
            try await hooks.simulate(options)
        case .healthcheck(let options):
            try await healthcheck(options)
        }
    }

    private func load(_ options: ConfigurationOptions, purpose: ConfigurationInputs.Purpose) throws(ConfigurationError)
        -> LoadedConfiguration {
        try ConfigurationLoader.load(ConfigurationInputs(configPath: options.configPath, flags: options.flags,
                                                         environment: environment, files: files, purpose: purpose,
                                                         schema: .tool, today: ConfigurationInputs.day(of: Date())))
    }

    private func report(_ warnings: [ConfigDiagnostic]) {
        for warning in warnings { output.standardError("warning: \(warning)\n") }
    }
}
