import FoundationEssentials
import Synchronization
import WPClient
import WPExporter
import WPCollector
import WPConfig
import WPLogging
import WPServer
import WPSimulator

extension RuntimeCommands {
    /// Devices of the demo, in six states: on mains, on battery, on bypass, in a battery test,
    /// disconnected, with a fault (as the simulator cycles them).
    static let demoDevices = 6

    /// `wpexporter demo`: the simulator in process on a free loopback port and the exporter
    /// against it, with a temporary data directory unless `--data-dir` was given. With
    /// `servers` above 1, that many servers (see ``demoFleet(count:first:winPower:)``).
    func demo(_ loaded: LoadedConfiguration, servers: Int = 1) async throws {
        var configuration = loaded.configuration
        func isDefault(_ key: String) -> Bool { (loaded.settings[key]?.source ?? .defaultValue) == .defaultValue }
        var simulatorConfiguration = WinPowerSimulator.Configuration()
        simulatorConfiguration.deviceCount = Self.demoDevices
        // Device 0 is three-phase; every device sends readings with no metric of their own.
        (simulatorConfiguration.threePhaseDevices, simulatorConfiguration.extraReadings) = (1, 6)
        simulatorConfiguration.alarmShapes = true
        simulatorConfiguration.username = "demo"
        simulatorConfiguration.password = UUID().uuidString
        let simulator = SimulatorServer(simulator: WinPowerSimulator(configuration: simulatorConfiguration))
        let simulatorAddress = try await simulator.start()
        configuration.winPower.baseURL = Self.url(simulatorAddress)
        configuration.winPower.username = simulatorConfiguration.username
        configuration.winPower.password = Secret(simulatorConfiguration.password)
        let fleet: DemoFleet
        do {
            fleet = try await Self.demoFleet(count: servers, first: simulatorAddress, simulator: simulatorConfiguration,
                                             winPower: configuration.winPower)
        } catch {
            await simulator.stop()
            throw error
        }
        configuration.servers = fleet.entries
        if isDefault("server.host") { configuration.server.host = "127.0.0.1" }
        if isDefault("logging.format") { configuration.logging.format = .console }
        if isDefault("logging.output") { configuration.logging.output = .stderr }
        if isDefault("logging.level") { configuration.logging.level = .warn }
        var temporary: URL?
        if isDefault("storage.data_dir") {
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent("wpexporter-demo-\(UUID().uuidString)")
            configuration.storage.dataDirectory = directory.path
            temporary = directory
        }
        defer { if let temporary { try? FileManager.default.removeItem(at: temporary) } }
        let logger = try makeLogger(configuration)
        // Closed off Swift's pool however the demo ends (waiting for the last lines).
        try await Self.closingLog(logger) {
            let output = self.output
            let (metricsPath, interval) = (configuration.server.metricsPath, configuration.scheduler.collectionInterval)
            let dataDirectory = configuration.storage.dataDirectory + (temporary == nil ? "" : " (temporary)")
            let screen = DemoScreen(output: output)
            // A note the screen keeps in its heading (a redraw would wipe a line printed once).
            let note = Mutex<String?>(nil)
            let onListening = Self.demoListening(screen: screen, live: output.standardOutputIsTerminal, simulatorAddress: simulatorAddress,
                                                 dataDirectory: dataDirectory, metricsPath: metricsPath, interval: interval,
                                                 fleet: fleet, note: { note.withLock { $0 } })
            // One signal watcher for both attempts: a signal during the first must stop the second.
            let waitForStop = controls.watchStopSignals()
            var saved = true
            defer {
                if let exposition = screen.stop() {
                    output.standardOutput(DemoScreen.farewell(exposition: exposition, dataDirectory: configuration.storage.dataDirectory,
                                                              temporary: temporary != nil, saved: saved))
                }
            }
            do {
                do {
                    try await run(configuration, logger: logger, waitForStop: waitForStop, onListening: onListening)
                } catch ExporterError.http(let error) where configuration.server.port != 0 {
                    // The port is taken (9090 often by Prometheus itself): any free port will do.
                    guard case .bind = error else { throw ExporterError.http(error) }
                    let text = "note: \(error); using a free port instead"
                    output.standardError(text + "\n")
                    note.withLock { $0 = text }
                    configuration.server.port = 0
                    try await run(configuration, logger: logger, waitForStop: waitForStop, onListening: onListening)
                }
            } catch {
                if case ExporterError.energyNotSaved = error { saved = false }
                await simulator.stop()
                for extra in fleet.simulators { await extra.stop() }
                throw error
            }
            await simulator.stop()
            for extra in fleet.simulators { await extra.stop() }
        }
    }

    /// What the demo shows once listening: the URLs, then the collections' values.
    static func demoListening(screen: DemoScreen, live: Bool, simulatorAddress: ServerAddress, dataDirectory: String,
                              metricsPath: String, interval: Duration, fleet: DemoFleet = DemoFleet(),
                              note: @escaping @Sendable () -> String? = { nil })
        -> @Sendable (ServerAddress, Exporter<ContinuousClock>) async -> Void {
        { address, exporter in
            let secure = exporter.isSecure
            let noted = note().map { $0 + "\n" } ?? ""
            let heading = noted + (fleet.entries.isEmpty ? """
            wpexporter demo: \(Self.demoDevices) simulated UPS devices at \(Self.url(simulatorAddress))
            energy state in \(dataDirectory)

              metrics:   \(Self.url(address, metricsPath, secure: secure))
              health:    \(Self.url(address, "/health", secure: secure))
              home page: \(Self.url(address, "/", secure: secure))

            """ : fleet.heading(address: address, simulatorAddress: simulatorAddress, dataDirectory: dataDirectory,
                                metricsPath: metricsPath, secure: secure))
            let servers = fleet.entries.isEmpty ? 1 : fleet.entries.filter { $0.name != fleet.down }.count
            screen.start(heading: heading, live: live, interval: interval, expectedDevices: servers * Self.demoDevices) {
                let latest = exporter.latestExposition
                return (latest.generatedAt.map(Self.timeOfDay), latest.text)
            }
        }
    }

    /// `HH:MM:SS UTC` of a date.
    static func timeOfDay(_ date: Date) -> String {
        let seconds = Int(date.timeIntervalSince1970.rounded(.down)) % 86_400
        func two(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }
        return "\(two(seconds / 3600)):\(two(seconds % 3600 / 60)):\(two(seconds % 60)) UTC"
    }
}
