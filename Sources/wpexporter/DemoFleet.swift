import FoundationEssentials
import WPConfig
import WPExporter
import WPServer
import WPSimulator

/// The servers of `wpexporter demo --servers N`: the demo's simulator, N − 2 more like it,
/// and one server that is down (a loopback port where nothing listens), as `servers` entries
/// named `wp-1` … `wp-N`.
struct DemoFleet: Sendable {
    /// The `servers` entries; empty for the single-server demo.
    var entries: [ServerEntry] = []
    /// The extra simulators started (the first one is the demo's own).
    var simulators: [SimulatorServer] = []
    /// The name of the server that is down.
    var down: String?

    /// The demo's heading for several servers.
    func heading(address: ServerAddress, simulatorAddress: ServerAddress, dataDirectory: String, metricsPath: String,
                 secure: Bool) -> String {
        let up = entries.filter { $0.name != down }.map(\.name)
        return """
        wpexporter demo: \(entries.count) WinPower servers: \(up.joined(separator: ", ")) simulated with \
        \(RuntimeCommands.demoDevices) UPS devices each (the first at \(RuntimeCommands.url(simulatorAddress))), \
        \(down ?? "none") down (nothing listens at its address)
        energy state in \(dataDirectory)

          metrics:   \(RuntimeCommands.url(address, metricsPath, secure: secure))   (every server, labelled server="…")
          probe:     \(RuntimeCommands.url(address, "/probe?target=\(entries.first?.name ?? "")", secure: secure))
          targets:   \(RuntimeCommands.url(address, "/targets", secure: secure))   (Prometheus http_sd_configs)
          health:    \(RuntimeCommands.url(address, "/health", secure: secure))

        """
    }
}

extension RuntimeCommands {
    /// Starts the demo's other servers: for `count` above 1, `count − 2` more simulators like
    /// the first (already running at `first`) and one down server.
    ///
    /// - Parameters:
    ///   - count: `--servers` (1 changes nothing).
    ///   - first: the demo's own simulator.
    ///   - simulator: its configuration, reused for the others (same credentials).
    ///   - winPower: the demo's `winpower` settings, the defaults of every entry.
    /// - Returns: the entries and the simulators to stop at the end.
    /// - Throws: when a simulator cannot bind a loopback port (those started are stopped).
    static func demoFleet(count: Int, first: ServerAddress, simulator: WinPowerSimulator.Configuration,
                          winPower: ExporterConfiguration.WinPower) async throws -> DemoFleet {
        guard count > 1 else { return DemoFleet() }
        var fleet = DemoFleet()
        var addresses = [first]
        do {
            for _ in 0..<(count - 2) {
                let server = SimulatorServer(simulator: WinPowerSimulator(configuration: simulator))
                addresses.append(try await server.start())
                fleet.simulators.append(server)
            }
            // A port just released: nothing listens there, so collections fail at once.
            let closed = SimulatorServer(simulator: WinPowerSimulator(configuration: simulator))
            addresses.append(try await closed.start())
            await closed.stop()
        } catch {
            for server in fleet.simulators { await server.stop() }
            throw error
        }
        fleet.entries = addresses.enumerated().map { index, address in
            var settings = winPower
            settings.baseURL = url(address)
            return ServerEntry(name: "wp-\(index + 1)", winPower: settings,
                               labels: [.init(name: "site", value: index.isMultiple(of: 2) ? "north" : "south")])
        }
        fleet.down = fleet.entries.last?.name
        return fleet
    }
}
