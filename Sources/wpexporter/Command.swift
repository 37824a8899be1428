import WPConfig
import WPExporter

/// A parsed command line, ready to run.
enum Command: Sendable, Equatable {
    /// Print help: for a command, a topic (`configuration`), or the overview when nil.
    case help(String?)
    /// Print the build facts as text or JSON.
    case version(json: Bool)
    /// Load and validate as `server` would, print the effective configuration.
    case checkConfig(ConfigurationOptions)
    /// Export from a real WinPower server.
    case server(ConfigurationOptions)
    /// Export from the embedded simulator.
    case demo(ConfigurationOptions)
    /// Run the WinPower simulator on its own.
    case simulate(SimulatorOptions)
    /// GET `/-/healthy` of the exporter the configuration describes (Healthcheck.swift).
    case healthcheck(ConfigurationOptions)
}

/// The configuration-related part of a command line.
struct ConfigurationOptions: Sendable, Equatable {
    /// `-c/--config PATH`.
    var configPath: String?
    /// Configuration flags in order.
    var flags: [ConfigurationInputs.Flag] = []
    /// `demo --servers N`: simulated WinPower servers (1 to ``CommandParser/maxDemoServers``);
    /// 1 is the single-server demo.
    var demoServers = 1
}

/// The options of `wpexporter simulate`, handed to the simulate hook.
struct SimulatorOptions: Sendable, Equatable {
    /// Address to bind.
    var host = "127.0.0.1"
    /// Port to bind; 0 picks a free one.
    var port = 8081
    /// Number of simulated UPS devices.
    var devices = 3
    /// Devices per page of the device list.
    var pageSize = 20
    /// How long a login token stays valid.
    var tokenLifetime: Duration = .seconds(1800)
    /// Write `exp` in milliseconds, like newer WinPower builds.
    var tokenExpInMilliseconds = false
    /// How far the simulated server's clock is off (negative: behind).
    var clockSkew: Duration = .zero
    /// Accepted user name.
    var username = "admin"
    /// Accepted password.
    var password = Secret("admin")
    /// Fault names to inject, as given (validated by the hook).
    var faults: [String] = []
    /// Number of independent servers (`--servers`); 1 serves one as before.
    var servers = 1
    /// Per-server faults (`--fault-server 1=down`), as given (validated by the hook).
    var serverFaults: [String] = []
    /// Scripted outages, `[DEVICE:]START+LENGTH` lists as given (validated by the hook).
    var outageSchedule: [String] = []
    /// `--three-phase`, `--extra-readings`, `--areas`, `--alarm-shapes`, `--alias-bytes`.
    var threePhaseDevices = 0, extraReadings = 0, areas = 1, alarmShapes = false, aliasBytes = 0
    /// `--alias`: the first device's alias.
    var alias: String?
    /// `--long-texts`: every device's alias and model of this many bytes.
    var longTexts = 0
    /// `--frozen`: every reading as at the start (``WinPowerSimulator/Configuration/frozenReadings``).
    var frozen = false
}
