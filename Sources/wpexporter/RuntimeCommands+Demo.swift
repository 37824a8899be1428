import FoundationEssentials
import WPClient
import WPCollector
import WPConfig
import WPLogging
import WPServer
import WPSimulator

extension RuntimeCommands {
    /// Devices of the demo: one on mains, one on battery, one disconnected, one with a fault.
    static let demoDevices = 6

    /// `wpexporter demo`: the simulator in process on a free loopback port and the exporter
    /// against it, with a temporary data directory unless `--data-dir` was given.
    func demo(_ loaded: LoadedConfiguration) async throws {
        var configuration = loaded.configuration
        func isDefault(_ key: String) -> Bool { (loaded.settings[key]?.source ?? .defaultValue) == .defaultValue }
        var simulatorConfiguration = WinPowerSimulator.Configuration()
        simulatorConfiguration.deviceCount = Self.demoDevices
        simulatorConfiguration.username = "demo"
        simulatorConfiguration.password = UUID().uuidString
        let simulator = SimulatorServer(simulator: WinPowerSimulator(configuration: simulatorConfiguration))
        let simulatorAddress = try await simulator.start()
        configuration.winPower.baseURL = Self.url(simulatorAddress)
        configuration.winPower.username = simulatorConfiguration.username
        configuration.winPower.password = Secret(simulatorConfiguration.password)
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
        let client = WinPowerHTTPClient(configuration: try ExporterSettings.client(configuration.winPower),
                                        logger: logger.child(label: "client"))
        let output = self.output
        let (metricsPath, interval) = (configuration.server.metricsPath, configuration.scheduler.collectionInterval)
        let dataDirectory = configuration.storage.dataDirectory + (temporary == nil ? "" : " (temporary)")
        let onListening = Self.demoListening(output: output, simulatorAddress: simulatorAddress, dataDirectory: dataDirectory,
                                             metricsPath: metricsPath, interval: interval)
        do {
            do {
                try await run(configuration, client: client, logger: logger, onListening: onListening)
            } catch let error as HTTPServerError where isDefault("server.port") {
                // The default port is taken (often by Prometheus itself): any free port will do.
                guard case .bind = error else { throw error }
                output.standardError("note: \(error); using a free port instead\n")
                configuration.server.port = 0
                try await run(configuration, client: client, logger: logger, onListening: onListening)
            }
        } catch {
            await simulator.stop()
            throw error
        }
        await simulator.stop()
    }

    /// What the demo prints once listening: the URLs, then the first collection's values.
    static func demoListening(output: TerminalOutput, simulatorAddress: ServerAddress, dataDirectory: String,
                              metricsPath: String, interval: Duration)
        -> @Sendable (ServerAddress, Exporter<ContinuousClock>) async -> Void {
        { address, exporter in
            output.standardOutput("""
            wpexporter demo: \(Self.demoDevices) simulated UPS devices at \(Self.url(simulatorAddress))
            energy state in \(dataDirectory)

              metrics:   \(Self.url(address, metricsPath, secure: exporter.isSecure))
              health:    \(Self.url(address, "/health", secure: exporter.isSecure))
              home page: \(Self.url(address, "/", secure: exporter.isSecure))

            Press Ctrl-C to stop.

            """)
            Task {
                // The first collection starts with the scheduler; show its values once published.
                for _ in 0..<300 {
                    let snapshot = exporter.collector.snapshot
                    if snapshot.generatedAt != nil {
                        output.standardOutput("live values (refreshed every \(interval) on /metrics):\n"
                                              + DemoSample.table(snapshot.text) + "\n")
                        return
                    }
                    try? await Task.sleep(for: .milliseconds(100))
                }
            }
        }
    }
}

/// Reads a few device values out of a text exposition, for the demo's printout.
enum DemoSample {
    /// One row per device: name, connection, power source, load and battery charge.
    static func table(_ exposition: [UInt8]) -> String {
        var rows: [String: [String: String]] = [:]
        var order: [String] = []
        let wanted = ["winpower_device_connected", "winpower_device_on_battery", "winpower_device_load_total_watts",
                      "winpower_device_battery_capacity"]
        for line in String(decoding: exposition, as: UTF8.self).split(separator: "\n") where !line.hasPrefix("#") {
            guard let brace = line.firstIndex(of: "{"), wanted.contains(String(line[..<brace])),
                  let id = label("device_id", in: line), let space = line.lastIndex(of: " ") else { continue }
            if rows[id] == nil {
                order.append(id)
                rows[id] = ["name": label("device_name", in: line) ?? id]
            }
            let value = String(line[line.index(after: space)...])
            rows[id]?[String(line[..<brace])] = Double(value).map { $0 == $0.rounded() ? String(Int($0)) : String(fixed: $0, fractionDigits: 1) } ?? value
        }
        var text = "device                 connected  on battery  load (W)  battery (%)\n"
        for id in order {
            guard let row = rows[id] else { continue }
            func cell(_ key: String, _ width: Int) -> String {
                let value = row[key] ?? "-"
                return value + String(repeating: " ", count: max(1, width - value.count))
            }
            let name = String((row["name"] ?? id).prefix(22))
            text += name + String(repeating: " ", count: max(1, 23 - name.count))
                + cell("winpower_device_connected", 11) + cell("winpower_device_on_battery", 12)
                + cell("winpower_device_load_total_watts", 10) + (row["winpower_device_battery_capacity"] ?? "-") + "\n"
        }
        return text
    }

    /// The unescaped value of label `name` in an exposition line.
    static func label(_ name: String, in line: Substring) -> String? {
        guard let start = line.firstRange(of: name + "=\"") else { return nil }
        var value = ""
        var escaped = false
        for character in line[start.upperBound...] {
            if escaped {
                value.append(character == "n" ? "\n" : character)
                escaped = false
            } else if character == "\\" {
                escaped = true
            } else if character == "\"" {
                return value
            } else {
                value.append(character)
            }
        }
        return nil
    }
}
