public import FoundationEssentials

/// Where the configuration loader takes its input from: everything explicit, nothing read
/// from the process, so loading is a pure function of its inputs.
public struct ConfigurationInputs: Sendable {
    /// What the configuration is for; decides which keys are required.
    public enum Purpose: Sendable, Equatable {
        /// Exporting from a real WinPower server: `winpower.base_url`, `username` and
        /// `password` are required.
        case server
        /// Running against the embedded simulator: WinPower credentials are optional.
        case demo
    }

    /// A configuration flag as given on the command line.
    public struct Flag: Sendable, Equatable {
        /// The flag as written, with `--` (`--port`, `--winpower.base_url`).
        public var name: String
        /// Its value (`"true"` for a boolean flag given alone).
        public var value: String
        /// Creates a flag setting.
        public init(_ name: String, _ value: String) {
            self.name = name
            self.value = value
        }
    }

    /// The path given with `-c/--config`, if any; it must exist.
    public var configPath: String?
    /// Configuration flags in command-line order (later ones win).
    public var flags: [Flag]
    /// The process environment (only `WINPOWER_EXPORTER_*` and `HOME` are used).
    public var environment: [String: String]
    /// How files are read.
    public var files: FileAccess
    /// Which keys are required.
    public var purpose: Purpose
    /// The keys read: the exporter's own and the sections its front ends declare.
    public var schema: ConfigSchema
    /// Today as days since 1970-01-01 (UTC), for the checks against the calendar (a battery
    /// installed after it is refused); `nil`: not checked.
    public var today: Int64?

    /// Creates inputs.
    public init(configPath: String? = nil, flags: [Flag] = [], environment: [String: String] = [:],
                files: FileAccess, purpose: Purpose = .server, schema: ConfigSchema = .exporter, today: Int64? = nil) {
        self.schema = schema
        self.today = today
        self.configPath = configPath
        self.flags = flags
        self.environment = environment
        self.files = files
        self.purpose = purpose
    }

    /// The day of `date` (UTC) as days since 1970-01-01: ``today`` for a load now.
    public static func day(of date: Date) -> Int64 {
        Int64((date.timeIntervalSince1970 / 86_400).rounded(.down))
    }

    /// The files tried, in order, when no `-c/--config` is given.
    public func searchPaths() -> [String] {
        var paths = ["./config.yaml", "./config/config.yaml"]
        if let home = environment["HOME"], !home.isEmpty {
            paths.append(home + "/.config/winpower-exporter/config.yaml")
        }
        paths.append("/etc/winpower-exporter/config.yaml")
        return paths
    }
}

/// A value and where it came from.
public struct ConfigSetting: Sendable, Equatable {
    /// The typed value.
    public var value: ConfigValue
    /// Its source.
    public var source: ConfigSource
}

/// A validated configuration, with the provenance of every value and the warnings found.
public struct LoadedConfiguration: Sendable {
    /// The typed configuration.
    public var configuration: ExporterConfiguration
    /// The YAML file read, if any.
    public var configurationFile: String?
    /// Every set key (defaults included), by dotted name.
    public var settings: [String: ConfigSetting]
    /// Things worth telling the user that do not stop the exporter.
    public var warnings: [ConfigDiagnostic]
    /// Every `servers` entry's values and their sources (empty without `servers`).
    public var servers: [ServerSettings] = []
    /// What the mappings `winpower.devices` and `nut.ups` set, with sources, keys in full
    /// (`winpower.devices.include`, `nut.ups.<id>.name`); empty without them.
    public var mappingRows: [ServerSettings.Row] = []
    /// What it was loaded from, so it can be loaded again (a reload) from the same file,
    /// environment and flags; `nil` for a value built in code.
    public var inputs: ConfigurationInputs?

    /// A loaded configuration as built in code (tests, embedders): no provenance unless given.
    public init(configuration: ExporterConfiguration, configurationFile: String? = nil,
                settings: [String: ConfigSetting] = [:], warnings: [ConfigDiagnostic] = [],
                servers: [ServerSettings] = [], mappingRows: [ServerSettings.Row] = [],
                inputs: ConfigurationInputs? = nil) {
        self.configuration = configuration
        self.mappingRows = mappingRows
        self.configurationFile = configurationFile
        self.settings = settings
        self.warnings = warnings
        self.servers = servers
        self.inputs = inputs
    }

    /// The inputs of a reload: the same environment and flags, and the file read this time
    /// (so a file that appears earlier in the search order later does not take over).
    public var reloadInputs: ConfigurationInputs? {
        guard var inputs else { return nil }
        if let configurationFile { inputs.configPath = configurationFile }
        return inputs
    }

    /// One line per key of the schema it was loaded with, in documentation order: `key  value  source`, secrets masked,
    /// unset optional keys shown as `(unset)`; then, with `servers`, each entry's values
    /// (``ServerSettings``).
    public func effectiveSettingsTable() -> String {
        let table = keyTable()
        return servers.isEmpty ? table : table + "\n\n" + ServerSettings.table(servers)
    }

    private func keyTable() -> String {
        var rows = (inputs?.schema ?? .exporter).keys.map { key -> (String, String, String) in
            guard let setting = settings[key.name] else { return (key.name, "(unset)", "default") }
            return (key.name, setting.value.formatted(as: key.type), setting.source.description)
        }
        // Each mapping's rows after the last key of its section.
        func section(_ key: String) -> Substring { key.prefix { $0 != "." } }
        let keys = rows
        rows = []
        for (index, row) in keys.enumerated() {
            rows.append(row)
            guard index == keys.count - 1 || section(keys[index + 1].0) != section(row.0) else { continue }
            rows += mappingRows.filter { section($0.key) == section(row.0) }.map { ($0.key, $0.value, $0.source) }
        }
        let nameWidth = rows.map(\.0.count).max() ?? 0
        let valueWidth = min(40, rows.map(\.1.count).max() ?? 0)
        func padded(_ text: String, _ width: Int) -> String {
            text + String(repeating: " ", count: max(0, width - text.count))
        }
        return rows.map { name, value, source in
            padded(name, nameWidth) + "  " + padded(value, valueWidth) + "  " + source
        }.joined(separator: "\n")
    }
}

/// Loads the exporter configuration from defaults, a YAML file, the environment and flags.
///
/// Precedence is per key: flags > environment > file > defaults. Validation collects every
/// problem before failing, so one run shows everything to fix.
///
/// ```swift
/// let inputs = ConfigurationInputs(flags: [.init("--port", "9100")],
///                                  environment: ProcessInfo.processInfo.environment,
///                                  files: files)
/// let loaded = try ConfigurationLoader.load(inputs)
/// ```
public enum ConfigurationLoader {
    /// Loads and validates.
    ///
    /// - Parameter inputs: The arguments, environment and file access to use.
    /// - Returns: The validated configuration with sources and warnings.
    /// - Throws: ``ConfigurationError`` listing every problem (and the warnings so far).
    public static func load(_ inputs: ConfigurationInputs) throws(ConfigurationError) -> LoadedConfiguration {
        var state = LoadState(inputs: inputs)
        state.applyDefaults()
        state.applyFile()
        state.applyEnvironment()
        state.applyFlags()
        state.validate()
        guard state.problems.isEmpty else {
            throw ConfigurationError(problems: state.problems, warnings: state.warnings, configurationFile: state.filePath,
                                     unreadFile: state.unreadPath)
        }
        return LoadedConfiguration(configuration: state.build(), configurationFile: state.filePath,
                                   settings: state.settings, warnings: state.warnings,
                                   servers: state.serverDrafts.map { ServerSettings.make($0, settings: state.settings,
                                                                                         winPowerDevices: state.winPowerDevices) },
                                   mappingRows: state.mappingRows, inputs: inputs)
    }
}
