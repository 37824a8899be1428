/// Where a configuration value came from.
public enum ConfigSource: Sendable, Hashable, CustomStringConvertible {
    /// The built-in default.
    case defaultValue
    /// A file; the position of the value when it came from the YAML configuration file,
    /// nil for a whole file (the password file).
    case file(path: String, position: SourcePosition?)
    /// An environment variable, by name.
    case environment(String)
    /// A command-line flag, as written (`--port`).
    case flag(String)

    /// `default`, `file config.yaml:3:9`, `env WINPOWER_EXPORTER_PORT`, `flag --port`.
    public var description: String {
        switch self {
        case .defaultValue: return "default"
        case .file(let path, let position?): return "file \(path):\(position)"
        case .file(let path, nil): return "file \(path)"
        case .environment(let name): return "env \(name)"
        case .flag(let flag): return "flag \(flag)"
        }
    }

    /// The prefix of a diagnostic: `config.yaml:3:9`, `env WINPOWER_EXPORTER_PORT`, ...
    var location: String {
        switch self {
        case .file(let path, let position?): return "\(path):\(position)"
        default: return description
        }
    }
}

/// One problem or warning found while loading the configuration.
///
/// The description is a complete sentence naming where (`file:line:column`, `env NAME`,
/// `flag --name`), the key, and what is allowed. Secret values never appear in it.
public struct ConfigDiagnostic: Sendable, Hashable, CustomStringConvertible {
    /// The dotted key concerned, when there is one.
    public var key: String?
    /// Where the offending value came from, when it came from somewhere.
    public var source: ConfigSource?
    /// What is wrong and what is allowed.
    public var message: String

    /// Creates a diagnostic.
    public init(key: String?, source: ConfigSource?, message: String) {
        self.key = key
        self.source = source
        self.message = message
    }

    /// `where: key: message`.
    public var description: String {
        var parts: [String] = []
        if let source { parts.append(source.location) }
        if let key { parts.append(key) }
        parts.append(message)
        return parts.joined(separator: ": ")
    }
}

/// The configuration is not valid; holds every problem found, not just the first.
public struct ConfigurationError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Every problem, in the order found (file, environment, flags, then cross-key checks).
    public var problems: [ConfigDiagnostic]
    /// Warnings found along the way (shown with the problems).
    public var warnings: [ConfigDiagnostic]
    /// The configuration file read (given with `-c` or found in the search order), if any.
    public var configurationFile: String?
    /// The configuration file that was to be read but does not exist or cannot be read, if any
    /// (``configurationFile`` is then nil; one problem says why).
    public var unreadFile: String?

    /// Creates an error.
    public init(problems: [ConfigDiagnostic], warnings: [ConfigDiagnostic] = [], configurationFile: String? = nil,
                unreadFile: String? = nil) {
        self.problems = problems
        self.warnings = warnings
        self.configurationFile = configurationFile
        self.unreadFile = unreadFile
    }

    /// One problem per line, prefixed with `error: `.
    public var description: String {
        problems.map { "error: \($0)" }.joined(separator: "\n")
    }
}
