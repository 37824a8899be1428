import WPConfig
import WPExporter
import WPSimulator

/// `wpexporter simulate`: one simulated WinPower server, or with `--servers N` a
/// ``SimulatorFleet`` of N independent ones.
extension RuntimeCommands {
    func simulate(_ options: SimulatorOptions) async throws {
        let configuration = try Self.simulatorConfiguration(options)
        let waitForStop = controls.watchStopSignals()
        let faults = configuration.faults.map(\.rawValue).sorted()
        let faultText = (faults.isEmpty ? "" : "; faults: \(faults.joined(separator: ", "))")
            + (configuration.outageSchedule.isEmpty ? ""
               : "; outages: \(configuration.outageSchedule.map(\.description).joined(separator: ", "))")
        let stop: () async -> Void
        if options.servers == 1, options.serverFaults.isEmpty {
            let simulator = WinPowerSimulator(configuration: configuration)
            let server = SimulatorServer(simulator: simulator, host: options.host, port: options.port)
            let address = try await server.start()
            output.standardOutput("WinPower simulator on \(Self.url(address)) with \(options.devices) devices, "
                                  + "pages of at most \(options.pageSize); user \"\(options.username)\"" + faultText + "\n")
            let switching = Task { await switchOnSignals(server, url: Self.url(address)) }
            stop = {
                switching.cancel()
                await server.stop()
            }
        } else {
            var fleetConfiguration = SimulatorFleet.Configuration(servers: options.servers, devicesPerServer: options.devices)
            fleetConfiguration.host = options.host
            fleetConfiguration.firstPort = options.port
            fleetConfiguration.server = configuration
            for entry in options.serverFaults {
                do {
                    fleetConfiguration.faults.merge(try SimulatorFleet.parseFaults(entry)) { _, new in new }
                } catch {
                    throw UsageError(command: "simulate", message: "--fault-server: \(error)")
                }
            }
            if let index = fleetConfiguration.faults.keys.first(where: { $0 >= options.servers }) {
                throw UsageError(command: "simulate", message: "--fault-server: server \(index) does not exist; "
                                 + "servers are numbered 0 to \(options.servers - 1)")
            }
            let fleet = SimulatorFleet(configuration: fleetConfiguration)
            try await fleet.start()
            output.standardOutput("WinPower simulators: \(options.servers) servers with \(options.devices) devices each, "
                                  + "pages of at most \(options.pageSize); user \"\(options.username)\"" + faultText + "\n")
            for member in fleet.members {
                output.standardOutput("  server \(member.index): \(member.baseURL)"
                                      + (member.fault.map { " (\($0.rawValue))" } ?? "") + "\n")
            }
            stop = { await fleet.stop() }
        }
        let controls = self.controls
        await waitForStop { controls.exit(1) }
        await stop()
    }

    /// Takes the simulator down on SIGUSR1 (its port held, connections refused: a WinPower
    /// server that is down) and back up on SIGUSR2 as a restarted one (its time and outage
    /// schedule from zero, earlier tokens unknown), one line each, until cancelled. A signal for
    /// the state it is in changes nothing.
    private func switchOnSignals(_ server: SimulatorServer, url: String) async {
        for await goDown in controls.watchSimulatorSignals() {
            guard !Task.isCancelled else { return }
            guard goDown != server.simulator.isUnreachable else { continue }
            do {
                if goDown {
                    try await server.setUnreachable(true)
                    output.standardOutput("WinPower simulator down: connections to \(url) refused, the port held (SIGUSR2 brings it back)\n")
                } else {
                    server.simulator.restart()
                    try await server.setUnreachable(false)
                    output.standardOutput("WinPower simulator up again on \(url), restarted: its time and outage schedule count from now\n")
                }
            } catch {
                output.standardError("WinPower simulator: cannot switch \(goDown ? "down" : "up"): \(error)\n")
            }
        }
    }

    /// The simulator settings `options` ask for.
    static func simulatorConfiguration(_ options: SimulatorOptions) throws -> WinPowerSimulator.Configuration {
        var configuration = WinPowerSimulator.Configuration()
        (configuration.threePhaseDevices, configuration.extraReadings) = (options.threePhaseDevices, options.extraReadings)
        (configuration.areas, configuration.alarmShapes) = (options.areas, options.alarmShapes)
        configuration.frozenReadings = options.frozen
        configuration.aliasBytes = options.aliasBytes
        configuration.alias = options.alias
        configuration.longTexts = options.longTexts
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
        return configuration
    }
}
