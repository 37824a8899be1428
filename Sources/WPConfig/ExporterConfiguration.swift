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
        /// `server.port`: TCP port to listen on.
        public var port = 9090
        /// `server.host`: address to bind.
        public var host = "0.0.0.0"
        /// `server.read_timeout`: longest time to read one request.
        public var readTimeout: Duration = .seconds(30)
        /// `server.write_timeout`: longest time to write one response.
        public var writeTimeout: Duration = .seconds(30)
        /// Accepted for compatibility; has no effect.
        public var enablePprof = false
        /// `server.metrics_path`: the path serving metrics.
        public var metricsPath = "/metrics"
        /// TLS and basic-authentication file, when set.
        public var webConfigFile: String?
        /// `server.enable_lifecycle` (`--web.enable-lifecycle`): serve `POST /-/reload`.
        public var enableLifecycle = false
        /// Creates `server.*` with every key at its default.
        public init() {}
    }

    /// `winpower.*`: the WinPower G2 server and how to reach it.
    public struct WinPower: Sendable, Equatable {
        /// Required by `server`; nil for `demo`, which uses the embedded simulator.
        public var baseURL: String?
        /// `winpower.username`; required by `server`.
        public var username: String?
        /// The password from `winpower.password` or read from `winpower.password_file`.
        public var password: Secret?
        /// The file the password was read from, when it was.
        public var passwordFile: String?
        /// `winpower.timeout`: limit of one whole collection from WinPower.
        public var timeout: Duration = .seconds(30)
        /// `winpower.api_timeout`: limit of one API request (at most `timeout`).
        public var apiTimeout: Duration = .seconds(10)
        /// `winpower.skip_ssl_verify`: accept any TLS certificate.
        public var skipSSLVerify = false
        /// `winpower.refresh_threshold`: log in again when the token has less left.
        public var refreshThreshold: Duration = .seconds(300)
        /// PEM bundle to trust, when set.
        public var caFile: String?
        /// `winpower.user_agent`: the `User-Agent` header; nil sends `wpexporter/<version>`.
        public var userAgent: String?
        /// `winpower.area_id`: the WinPower area whose devices are listed.
        public var areaId = "00000000-0000-0000-0000-000000000000"
        /// `winpower.include_sub_area`: list the area's sub-areas too.
        public var includeSubArea = true
        /// `winpower.passthrough_readings`: export readings without a metric of their own.
        public var passthroughReadings = true
        /// `winpower.max_readings_per_device`: passed-through readings kept per device.
        public var maxReadingsPerDevice = 64
        /// `winpower.max_readings_per_server`: passed-through readings kept per server.
        public var maxReadingsPerServer = 4_096
        /// `winpower.max_devices`: devices kept per server, whatever page size it reports.
        public var maxDevices = 10_000
        /// `winpower.max_pages`: device-list pages read per collection.
        public var maxPages = 1_000
        /// `winpower.max_text_bytes`: longest device text kept, in UTF-8 bytes.
        public var maxTextBytes = 256
        /// `winpower.devices`: which devices are exported, their names and static labels.
        public var devices = DeviceSelection()
        /// Creates `winpower.*` with every key at its default.
        public init() {}
    }

    /// `storage.*`: the energy state on disk.
    public struct Storage: Sendable, Equatable {
        /// `storage.data_dir`: directory of the energy state.
        public var dataDirectory = "./data"
        /// Permission bits, e.g. `0o644`.
        public var filePermissions = 0o644
        /// `storage.sync_write`: write and fsync after every collection.
        public var syncWrite = true
        /// Used when `syncWrite` is false.
        public var flushInterval: Duration = .seconds(60)
        /// Creates `storage.*` with every key at its default.
        public init() {}
    }

    /// `scheduler.*`: collection timing.
    public struct Scheduler: Sendable, Equatable {
        /// `scheduler.collection_interval`: time between collections.
        public var collectionInterval: Duration = .seconds(5)
        /// `scheduler.graceful_shutdown_timeout`: longest wait for a running collection on stop.
        public var gracefulShutdownTimeout: Duration = .seconds(5)
        /// Creates `scheduler.*` with every key at its default.
        public init() {}
    }

    /// `energy.*`: integration of power into energy.
    public struct Energy: Sendable, Equatable {
        /// `energy.max_gap`: longest sample gap that is integrated.
        public var maxGap: Duration = .seconds(60)
        /// `energy.max_power_watts`: the plausibility bound for every device; `nil` derives
        /// it from each device's rating.
        public var maxPowerWatts: Int?
        /// `energy.tariffs.*`: the cost of energy (off without a currency).
        public var tariffs = Tariffs()
        /// Creates `energy.*` with every key at its default.
        public init() {}
    }

    /// `logging.*`: what is logged and where.
    public struct Logging: Sendable, Equatable {
        /// `logging.level`.
        public enum Level: String, Sendable, Equatable, CaseIterable {
            /// `debug`: everything, detail for diagnosing problems included.
            case debug
            /// `info`: normal operation and above.
            case info
            /// `warn`: what the exporter recovered from, and errors.
            case warn
            /// `error`: failures only.
            case error
        }

        /// `logging.format`.
        public enum Format: String, Sendable, Equatable, CaseIterable {
            /// `json`: one JSON object per line.
            case json
            /// `console`: aligned columns for people reading a terminal.
            case console
        }

        /// Where records go; `file` and `both` carry the log file's path.
        public enum Output: Sendable, Equatable {
            /// `stdout`: standard output.
            case stdout
            /// `stderr`: standard error.
            case stderr
            /// `file` (or a path): the log file at this path.
            case file(String)
            /// Standard output and the file.
            case both(String)
        }

        /// `logging.level`: lowest level written.
        public var level: Level = .info
        /// `logging.format`.
        public var format: Format = .json
        /// `logging.output`, resolved with `logging.file_path`.
        public var output: Output = .stdout
        /// `logging.file_path` as configured (the path in `output` when it uses a file).
        public var filePath = "./logs/wpexporter.log"
        /// Megabytes before rotation.
        public var maxSize = 100
        /// Days rotated files are kept; 0 keeps them.
        public var maxAge = 7
        /// Rotated files kept; 0 keeps all.
        public var maxBackups = 3
        /// `logging.compress`: gzip rotated files.
        public var compress = true
        /// `logging.enable_caller`: add `file:line` to records.
        public var enableCaller = false
        /// Accepted for compatibility; has no effect.
        public var enableStacktrace = false
        /// Creates `logging.*` with every key at its default.
        public init() {}
    }

    /// `push.*`: optional pushing to a Prometheus Pushgateway.
    public struct Push: Sendable, Equatable {
        /// Pushing is off when nil.
        public var url: String?
        /// `push.interval`: time between pushes.
        public var interval: Duration = .seconds(15)
        /// `push.job`: the job label.
        public var job = "wpexporter"
        /// `push.username`: basic-authentication user.
        public var username: String?
        /// `push.password`: basic-authentication password.
        public var password: Secret?
        /// Creates `push.*` with every key at its default (pushing off).
        public init() {}
    }

    /// `nut.*`: the NUT (upsd) network server.
    public struct NUT: Sendable, Equatable {
        /// `nut.listen`: `host:port`; the NUT server is off when nil.
        public var listen: String?
        /// `nut.users_file`.
        public var usersFile: String?
        /// `nut.allow_anonymous`.
        public var allowAnonymous = true
        /// `nut.battery_charge_low`, percent.
        public var batteryChargeLow = 10
        /// `nut.battery_runtime_low`.
        public var batteryRuntimeLow: Duration = .seconds(120)
        /// `nut.default_ups`.
        public var defaultUPS: String?
        /// `nut.max_connections`.
        public var maxConnections = 256
        /// `nut.ups`: per device (by `device_id`), its NUT name and low-battery thresholds.
        public var ups: [String: UPS] = [:]
        /// Creates `nut.*` with every key at its default (the NUT server off).
        public init() {}

        /// One device's NUT settings; what is `nil` takes the default.
        public struct UPS: Sendable, Equatable {
            /// The NUT name instead of the one derived from the alias.
            public var name: String?
            /// `battery.charge.low` of this UPS, percent (else `nut.battery_charge_low`).
            public var batteryChargeLow: Int?
            /// `battery.runtime.low` of this UPS (else `nut.battery_runtime_low`).
            public var batteryRuntimeLow: Duration?

            /// Creates one device's NUT settings; each `nil` takes the `nut.*` default.
            public init(name: String? = nil, batteryChargeLow: Int? = nil, batteryRuntimeLow: Duration? = nil) {
                self.name = name
                self.batteryChargeLow = batteryChargeLow
                self.batteryRuntimeLow = batteryRuntimeLow
            }
        }

        /// `listen` split into host and port (`:3493` → `0.0.0.0`, 3493; `[::1]:3493` → `::1`);
        /// nil when it is not `host:port` with a port 0–65535.
        public var address: (host: String, port: Int)? {
            listen.flatMap { HostPort.parse($0, defaultPort: nil) }
        }
    }

    /// `server.*`.
    public var server = Server()
    /// `winpower.*`.
    public var winPower = WinPower()
    /// `storage.*`.
    public var storage = Storage()
    /// `scheduler.*`.
    public var scheduler = Scheduler()
    /// `energy.*`.
    public var energy = Energy()
    /// `logging.*`.
    public var logging = Logging()
    /// `push.*`.
    public var push = Push()
    /// `nut.*`.
    public var nut = NUT()
    /// `snmp.*`.
    public var snmp = SNMP()
    /// The sections front ends declare (``ConfigSectionSettings``; `history`), by section name:
    /// read and set through ``subscript(section:)``.
    public var declaredSections: [String: DeclaredSectionValues] = [:]

    /// `snmp.*`: the SNMP agent (docs/snmp.md).
    public struct SNMP: Sendable, Equatable {
        /// `snmp.listen`: UDP `host:port` (port 161 when omitted); the agent is off when nil.
        public var listen: String?
        /// `snmp.users_file`: communities, SNMPv3 users, trap receivers.
        public var usersFile: String?
        /// `snmp.default_ups`.
        public var defaultUPS: String?
        /// `snmp.system.name`: `sysName` without a UPS selector; nil: the host name.
        public var systemName: String?
        /// `snmp.system.contact`: `sysContact`.
        public var systemContact = ""
        /// `snmp.system.location`: `sysLocation`.
        public var systemLocation = ""
        /// Creates `snmp.*` with every key at its default (the agent off).
        public init() {}

        /// The port when `snmp.listen` gives none.
        public static let defaultPort = 161

        /// `listen` split into host and port (`:161` or `` → `0.0.0.0`; `[::1]` → `::1`, 161);
        /// nil when it is not `host[:port]` with a port 0–65535.
        public var address: (host: String, port: Int)? {
            listen.flatMap { HostPort.parse($0, defaultPort: Self.defaultPort) }
        }
    }
    /// `servers`: the WinPower servers of a multi-server exporter; empty when the file has no
    /// `servers` section (the single server of ``winPower`` is used).
    public var servers: [ServerEntry] = []

    /// The defaults of every key.
    public init() {}
}
