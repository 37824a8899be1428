/// The exporter's complete, validated configuration.
///
/// Every key of ``ConfigKey/all`` has a field here. Defaults come from ``init()``;
/// ``ConfigurationLoader`` builds a value from the YAML file, the environment and the flags
/// and only returns one that passed validation. The executable maps each section onto the
/// `Configuration` struct of the library that uses it.
///
/// ```swift
/// let loaded = try ConfigurationLoader.load(inputs)
/// let port = loaded.configuration.server.port
/// ```
public struct ExporterConfiguration: Sendable, Equatable {
    /// `server.*`: the HTTP server.
    public struct Server: Sendable, Equatable {
        public var port = 9090
        public var host = "0.0.0.0"
        public var readTimeout: Duration = .seconds(30)
        public var writeTimeout: Duration = .seconds(30)
        /// Accepted for compatibility; has no effect.
        public var enablePprof = false
        public var metricsPath = "/metrics"
        /// TLS and basic-authentication file, when set.
        public var webConfigFile: String?
        public init() {}
    }

    /// `winpower.*`: the WinPower G2 server and how to reach it.
    public struct WinPower: Sendable, Equatable {
        /// Required by `server`; nil for `demo`, which uses the embedded simulator.
        public var baseURL: String?
        public var username: String?
        /// The password from `winpower.password` or read from `winpower.password_file`.
        public var password: Secret?
        /// The file the password was read from, when it was.
        public var passwordFile: String?
        public var timeout: Duration = .seconds(30)
        public var apiTimeout: Duration = .seconds(10)
        public var skipSSLVerify = false
        public var refreshThreshold: Duration = .seconds(300)
        /// PEM bundle to trust, when set.
        public var caFile: String?
        public init() {}
    }

    /// `storage.*`: the energy state on disk.
    public struct Storage: Sendable, Equatable {
        public var dataDirectory = "./data"
        /// Permission bits, e.g. `0o644`.
        public var filePermissions = 0o644
        public var syncWrite = true
        /// Used when `syncWrite` is false.
        public var flushInterval: Duration = .seconds(60)
        public init() {}
    }

    /// `scheduler.*`: collection timing.
    public struct Scheduler: Sendable, Equatable {
        public var collectionInterval: Duration = .seconds(5)
        public var gracefulShutdownTimeout: Duration = .seconds(5)
        public init() {}
    }

    /// `energy.*`: integration of power into energy.
    public struct Energy: Sendable, Equatable {
        public var maxGap: Duration = .seconds(60)
        public init() {}
    }

    /// `logging.*`: what is logged and where.
    public struct Logging: Sendable, Equatable {
        /// `logging.level`.
        public enum Level: String, Sendable, Equatable, CaseIterable {
            case debug, info, warn, error
        }

        /// `logging.format`.
        public enum Format: String, Sendable, Equatable, CaseIterable {
            case json, console
        }

        /// Where records go; `file` and `both` carry the log file's path.
        public enum Output: Sendable, Equatable {
            case stdout
            case stderr
            case file(String)
            /// Standard output and the file.
            case both(String)
        }

        public var level: Level = .info
        public var format: Format = .json
        public var output: Output = .stdout
        /// `logging.file_path` as configured (the path in `output` when it uses a file).
        public var filePath = "./logs/wpexporter.log"
        /// Megabytes before rotation.
        public var maxSize = 100
        /// Days rotated files are kept; 0 keeps them.
        public var maxAge = 7
        /// Rotated files kept; 0 keeps all.
        public var maxBackups = 3
        public var compress = true
        public var enableCaller = false
        /// Accepted for compatibility; has no effect.
        public var enableStacktrace = false
        public init() {}
    }

    /// `push.*`: optional pushing to a Prometheus Pushgateway.
    public struct Push: Sendable, Equatable {
        /// Pushing is off when nil.
        public var url: String?
        public var interval: Duration = .seconds(15)
        public var job = "wpexporter"
        public var username: String?
        public var password: Secret?
        public init() {}
    }

    public var server = Server()
    public var winPower = WinPower()
    public var storage = Storage()
    public var scheduler = Scheduler()
    public var energy = Energy()
    public var logging = Logging()
    public var push = Push()

    /// The defaults of every key.
    public init() {}
}
