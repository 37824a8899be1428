import Foundation
import Testing
import WPTestThreads
import WPLogging
import WPServer
import WPSimulator
import WPStorage
import WPTestSupport

/// The built binary's long-running commands, stopped with signals.
@Suite(.ownThreads, .timeLimit(.minutes(3)), .serialized) struct RuntimeBinaryTests {
    static func temporaryDirectory() -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("wpexporter-bin-\(UUID().uuidString)").path
    }

    static func get(_ port: Int, _ path: String) async throws -> TestHTTPClient.Response {
        let connection = try await TestHTTPClient.connect(port: port, sending: "GET \(path) HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n")
        defer { connection.close() }
        return try await connection.readResponse()
    }

    /// `simulate` goes down on SIGUSR1 (connections refused, the port held: binding it fails)
    /// and comes back on SIGUSR2 on the same port, restarted; SIGTERM ends it.
    @Test func simulateGoesDownAndComesBackOnTheSamePortOnSignals() async throws {
        let simulator = try LaunchedExporter(["simulate", "--port", "0", "--devices", "2"])
        try await simulator.waitFor("the simulator's URL") { simulator.standardOutput.contains("WinPower simulator on") }
        let port = try #require(simulator.printedPort(after: "WinPower simulator on"))
        #expect(try await Self.get(port, "/").status == 404)
        simulator.signal(SIGUSR1)
        try await simulator.waitFor("the simulator down") { simulator.standardOutput.contains("WinPower simulator down") }
        await #expect(throws: TestHTTPClient.ClientError.self) { _ = try await TestHTTPClient.connect(port: port) }
        #expect(throws: (any Error).self, "the port is held while down") {
            _ = try ReservedPort(host: "127.0.0.1", port: port, mode: .refusing)
        }
        simulator.signal(SIGUSR2)
        try await simulator.waitFor("the simulator back") { simulator.standardOutput.contains("WinPower simulator up again") }
        #expect(try await Self.get(port, "/").status == 404)
        #expect(await simulator.terminate() == 0)
    }

    @Test func demoPrintsURLsAndLiveValuesServesTheSimulatedDevicesAndStopsOnSIGTERM() async throws {
        let dataDirectory = Self.temporaryDirectory()
        let demo = try LaunchedExporter(["demo", "--port", "0", "--data-dir", dataDirectory])
        try await demo.waitFor("the live values") { demo.standardOutput.contains("live values") }
        let port = try #require(demo.printedPort(after: "metrics:"))
        #expect(demo.standardOutput.contains("health:"))
        let metrics = try await Self.get(port, "/metrics")
        #expect(metrics.status == 200)
        #expect(metrics.text.contains("winpower_device_on_battery{"))
        #expect(metrics.text.split(separator: "\n").contains { $0.hasPrefix("winpower_device_on_battery{") && $0.hasSuffix(" 1") })
        #expect(metrics.text.split(separator: "\n").contains { $0.hasPrefix("winpower_device_connected{") && $0.hasSuffix(" 0") })
        #expect(metrics.text.contains("winpower_exporter_device_count 6"))
        let lines = metrics.text.split(separator: "\n")
        for mode in ["line", "battery", "fault", "battery_test", "bypass"] { // the sixth device is disconnected
            #expect(lines.contains { $0.hasPrefix("winpower_device_operating_mode{") && $0.contains("mode=\"\(mode)\"") && $0.hasSuffix(" 1") })
        }
        #expect(lines.filter { $0.hasPrefix("winpower_device_battery_test_running{") && $0.hasSuffix(" 1") }.count == 1)
        #expect(lines.filter { $0.hasPrefix("winpower_device_on_bypass{") && $0.hasSuffix(" 1") }.count == 1)
        #expect(lines.filter { $0.hasPrefix("winpower_device_on_battery{") && $0.hasSuffix(" 1") }.count == 1)
        #expect(await demo.terminate() == 0)
        #expect(FileManager.default.fileExists(atPath: dataDirectory + "/energy.state"))
        try? FileManager.default.removeItem(atPath: dataDirectory)
    }

    @Test func sigtermDuringASlowCollectionExitsZeroWithEnergySaved() async throws {
        var configuration = WinPowerSimulator.Configuration()
        configuration.deviceCount = 3
        configuration.password = "binary-Pa55"
        configuration.slowDelay = .seconds(2)
        let simulatorServer = SimulatorServer(simulator: WinPowerSimulator(configuration: configuration))
        let simulatorPort = try await simulatorServer.start().port
        let dataDirectory = Self.temporaryDirectory()
        let server = try LaunchedExporter([
            "server", "--port", "0", "--server.host", "127.0.0.1",
            "--winpower.base_url", "http://127.0.0.1:\(simulatorPort)", "--winpower.username", "admin",
            "--data-dir", dataDirectory, "--sync-write=false", "--storage.flush_interval", "1h",
            "--scheduler.collection_interval", "1s", "--scheduler.graceful_shutdown_timeout", "10s",
        ], environment: ["WINPOWER_EXPORTER_WINPOWER_PASSWORD": "binary-Pa55"])
        try await server.waitFor("the metrics URL") { server.printedPort(after: "metrics:") != nil }
        let port = try #require(server.printedPort(after: "metrics:"))
        // Three collections integrate energy; with saves only at shutdown, /metrics serves the
        // saved totals (docs/energy.md): still the starting ones.
        var energy = -1.0
        try await server.waitFor("three collections") {
            let text = (try? await Self.get(port, "/metrics"))?.text ?? ""
            func value(_ prefix: String) -> Double? {
                text.split(separator: "\n").first { $0.hasPrefix(prefix) }.flatMap { Double($0.split(separator: " ").last ?? "") }
            }
            energy = value("winpower_device_energy_joules_total{") ?? -1
            return (value("winpower_exporter_collection_duration_seconds_count") ?? 0) >= 3
        }
        #expect(energy == 0, "served totals are the saved ones; nothing was saved yet")
        simulatorServer.simulator.enable(.slow)
        try await server.waitFor("a slow collection in flight") {
            ((try? await Self.get(port, "/health"))?.text ?? "").contains("\"in_progress\":true")
        }
        #expect(await server.terminate() == 0)
        #expect(!server.standardOutput.contains("binary-Pa55") && !server.standardError.contains("binary-Pa55"))
        let store = try FileEnergyStore(configuration: StorageConfiguration(dataDirectory: dataDirectory), logger: .disabled)
        let saved = try store.load().state.devices.values.map(\.joules).max() ?? 0
        store.close()
        #expect(saved > 0, "energy saved on shutdown (flush interval 1h: only shutdown saves)")
        await simulatorServer.stop()
        try? FileManager.default.removeItem(atPath: dataDirectory)
    }

    @Test func aSecondSignalDuringTheGracefulWaitPersistsAndExitsAtOnce() async throws {
        var configuration = WinPowerSimulator.Configuration()
        configuration.faults = [.slow]
        configuration.slowDelay = .seconds(120)
        let simulatorServer = SimulatorServer(simulator: WinPowerSimulator(configuration: configuration))
        let simulatorPort = try await simulatorServer.start().port
        let dataDirectory = Self.temporaryDirectory()
        let server = try LaunchedExporter([
            "server", "--port", "0", "--server.host", "127.0.0.1",
            "--winpower.base_url", "http://127.0.0.1:\(simulatorPort)", "--winpower.username", "admin",
            "--winpower.password", "admin", "--data-dir", dataDirectory,
            "--winpower.timeout", "120s", "--winpower.api_timeout", "120s",
            "--scheduler.graceful_shutdown_timeout", "120s",
        ])
        try await server.waitFor("the metrics URL") { server.printedPort(after: "metrics:") != nil }
        server.signal(SIGTERM)
        try await server.waitFor("the graceful shutdown to begin") { server.standardOutput.contains("shutting down") }
        server.signal(SIGTERM)
        #expect(await server.exitStatus() == 1)
        #expect(server.standardOutput.contains("second signal: persisting energy"))
        await simulatorServer.stop()
        try? FileManager.default.removeItem(atPath: dataDirectory)
    }

    @Test func serverThatCannotBindExitsOneNamingTheAddress() async throws {
        let occupied = SimulatorServer(simulator: WinPowerSimulator())
        let port = try await occupied.start().port
        let dataDirectory = Self.temporaryDirectory()
        let result = try await BinaryTests.run(["server", "--port", "\(port)", "--server.host", "127.0.0.1",
                                          "--winpower.base_url", "http://127.0.0.1:1", "--winpower.username", "u",
                                          "--winpower.password", "p", "--data-dir", dataDirectory])
        #expect(result.status == 1)
        #expect(result.err.contains("127.0.0.1:\(port)"))
        await occupied.stop()
        try? FileManager.default.removeItem(atPath: dataDirectory)
    }

    @Test func simulateRejectsAnUnknownFaultWithUsageStatus() async throws {
        let result = try await BinaryTests.run(["simulate", "--port", "0", "--fault", "slowish"])
        #expect(result.status == 64)
        #expect(result.err.contains("slowish"))
    }

    @Test func simulateServesTheRequestedDevicesUntilSIGTERM() async throws {
        let simulate = try LaunchedExporter(["simulate", "--port", "0", "--devices", "7"])
        try await simulate.waitFor("the simulator URL") { simulate.printedPort(after: "simulator") != nil }
        #expect(simulate.standardOutput.contains("7 devices"))
        #expect(await simulate.terminate() == 0)
    }

    @Test func checkConfigValidatesWithoutPrintingThePassword() async throws {
        let result = try await BinaryTests.run(["check-config", "--winpower.base_url", "http://winpower.example:8081",
                                          "--winpower.username", "admin", "--winpower.password", "check-Pa55"])
        #expect(result.status == 0)
        #expect(result.out.contains("configuration is valid"))
        #expect(!result.out.contains("check-Pa55") && !result.err.contains("check-Pa55"))
    }
}
