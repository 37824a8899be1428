/// Everything that decides where logs go and what they look like, with the exporter's defaults.
///
/// It mirrors the `logging` section of the configuration file (`level`, `format`, `output`,
/// `max_size`, `max_age`, `max_backups`, `compress`, `enable_caller`, `enable_stacktrace`) plus
/// the file path, so the library can be embedded without the configuration module. Build the
/// sink and logger with ``makeSink(environment:)`` and ``makeLogger(label:redactor:environment:)``.
///
/// ```swift
/// var configuration = LoggingConfiguration()
/// configuration.output = .both
/// configuration.filePath = "/var/log/wpexporter/wpexporter.log"
/// let redactor = Redactor(secrets: [password])
/// let log = try configuration.makeLogger(label: "wpexporter", redactor: redactor)
/// ```
public struct LoggingConfiguration: Sendable, Equatable {
    /// The line format.
    public enum Format: String, Sendable, CaseIterable {
        /// One JSON object per line (``JSONLogEncoder``).
        case json
        /// Aligned human-readable columns (``ConsoleLogEncoder``).
        case console
    }

    /// Where lines are written.
    public enum Output: String, Sendable, CaseIterable {
        /// Standard output.
        case stdout
        /// Standard error.
        case stderr
        /// The rotating file at ``LoggingConfiguration/filePath``.
        case file
        /// Standard output and the rotating file.
        case both
    }

    /// The minimum level written. Default `info`.
    public var level: LogLevel
    /// The line format. Default `json`.
    public var format: Format
    /// Where lines go. Default `stdout`.
    public var output: Output
    /// The log file for `file` and `both`. Default `./logs/wpexporter.log`; its directory is
    /// created when missing.
    public var filePath: String
    /// Rotate the file before it would grow past this many MiB (1 MiB = 1,048,576 bytes). Default 100.
    public var maxSizeMB: Int
    /// Delete rotated files older than this many days; 0 keeps them regardless of age. Default 7.
    public var maxAgeDays: Int
    /// Keep at most this many rotated files; 0 keeps them all. Default 3.
    public var maxBackups: Int
    /// Gzip rotated files. Default `true`.
    public var compress: Bool
    /// Add the call site (`caller`, `#fileID:#line`) to every record. Default `false`.
    public var enableCaller: Bool
    /// Add the call site to `error` records. Swift cannot capture a symbolicated stack trace
    /// portably, so this is the honest subset of the Go exporter's option. Default `false`.
    public var enableStacktrace: Bool

    /// Creates a configuration; every parameter defaults to the exporter's default.
    public init(level: LogLevel = .info, format: Format = .json, output: Output = .stdout,
                filePath: String = "./logs/wpexporter.log", maxSizeMB: Int = 100, maxAgeDays: Int = 7,
                maxBackups: Int = 3, compress: Bool = true, enableCaller: Bool = false,
                enableStacktrace: Bool = false) {
        self.level = level
        self.format = format
        self.output = output
        self.filePath = filePath
        self.maxSizeMB = maxSizeMB
        self.maxAgeDays = maxAgeDays
        self.maxBackups = maxBackups
        self.compress = compress
        self.enableCaller = enableCaller
        self.enableStacktrace = enableStacktrace
    }

    /// Which records carry the caller under this configuration.
    public var callerPolicy: CallerPolicy {
        CallerPolicy(enableCaller: enableCaller, enableStacktrace: enableStacktrace)
    }

    /// Whether ``output`` includes the log file.
    public var writesFile: Bool { output == .file || output == .both }

    /// The rotating-file settings derived from this configuration.
    public var rotation: RotatingFileSink.Configuration {
        RotatingFileSink.Configuration(path: filePath, maxSizeMB: maxSizeMB, maxBackups: maxBackups,
                                       maxAgeDays: maxAgeDays, compress: compress)
    }

    /// Every out-of-range setting, as errors naming the configuration key.
    ///
    /// File settings are only checked when ``output`` includes the file.
    public func problems() -> [LoggingError] {
        guard writesFile else { return [] }
        var problems: [LoggingError] = []
        if filePath.isEmpty {
            problems.append(.invalidConfiguration(key: "file_path", message: "must not be empty"))
        }
        if maxSizeMB < 1 {
            problems.append(.invalidConfiguration(key: "max_size", message: "must be at least 1 (MB), got \(maxSizeMB)"))
        } else if maxSizeMB > Int.max / (1 << 20) {
            problems.append(.invalidConfiguration(key: "max_size", message: "is too large: \(maxSizeMB)"))
        }
        if maxAgeDays < 0 {
            problems.append(.invalidConfiguration(key: "max_age", message: "must be 0 (keep) or more days, got \(maxAgeDays)"))
        }
        if maxBackups < 0 {
            problems.append(.invalidConfiguration(key: "max_backups", message: "must be 0 (keep all) or more, got \(maxBackups)"))
        }
        return problems
    }
}
