import Foundation
import Testing
import WPTestThreads
import WPServer
import WPSimulator
import WPTestSupport

/// The built binary reloads its configuration on SIGHUP and `POST /-/reload`, keeps running on
/// a broken file, and never logs the password.
@Suite(.ownThreads, .timeLimit(.minutes(4)), .serialized) struct ReloadBinaryTests {
    static func request(_ port: Int, _ method: String, _ path: String) async throws -> TestHTTPClient.Response {
        let connection = try await TestHTTPClient.connect(port: port, sending: "\(method) \(path) HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n")
        defer { connection.close() }
        return try await connection.readResponse()
    }

    static func reloadGauge(_ port: Int) async -> Double? {
        let text = (try? await request(port, "GET", "/metrics"))?.text ?? ""
        let sample = text.split(separator: "\n").first { $0.hasPrefix("winpower_exporter_config_last_reload_successful ") }
        return sample.flatMap { $0.split(separator: " ").last }.flatMap { Double($0) }
    }

    @Test func sighupAndPostReloadKeepTheProcessAndTheRunningConfigurationOnABrokenFile() async throws {
        var configuration = WinPowerSimulator.Configuration()
        configuration.deviceCount = 2
        configuration.password = "reload-Pa55"
        let simulatorServer = SimulatorServer(simulator: WinPowerSimulator(configuration: configuration))
        let simulatorPort = try await simulatorServer.start().port
        let directory = RuntimeBinaryTests.temporaryDirectory()
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let file = directory + "/config.yaml"
        let good = """
        server:
          host: 127.0.0.1
          port: 0
        winpower:
          base_url: http://127.0.0.1:\(simulatorPort)
          username: admin
          password: reload-Pa55
        storage:
          data_dir: \(directory)/data

        """
        try good.write(toFile: file, atomically: true, encoding: .utf8)
        let server = try LaunchedExporter(["server", "-c", file, "--web.enable-lifecycle"])
        try await server.waitFor("the metrics URL") { server.printedPort(after: "metrics:") != nil }
        let port = try #require(server.printedPort(after: "metrics:"))
        #expect(await Self.reloadGauge(port) == 1)

        // A broken file: SIGHUP reports it and the exporter keeps serving.
        try (good + "scheduler:\n  collection_interval: soon\n").write(toFile: file, atomically: true, encoding: .utf8)
        server.signal(SIGHUP)
        try await server.waitFor("the failed reload on /metrics") { await Self.reloadGauge(port) == 0 }
        // The log line reaches the test through a pipe read on another thread: it may arrive
        // after /metrics already shows the failure.
        try await server.waitFor("the failed reload logged") { server.standardOutput.contains("configuration reload failed") }
        #expect(server.standardOutput.contains("scheduler.collection_interval"))
        let refused = try await Self.request(port, "POST", "/-/reload")
        #expect(refused.status == 500)
        #expect(refused.text.contains("scheduler.collection_interval"))
        let health = try await Self.request(port, "GET", "/health")
        #expect(health.text.contains("\"last_successful\":false"))

        // Fixed again: the next reload succeeds.
        try good.write(toFile: file, atomically: true, encoding: .utf8)
        let reloaded = try await Self.request(port, "POST", "/-/reload")
        #expect(reloaded.status == 200)
        #expect(await Self.reloadGauge(port) == 1)
        server.signal(SIGHUP)
        try await server.waitFor("a second successful reload logged") {
            server.standardOutput.components(separatedBy: "\"configuration reloaded\"").count >= 3
        }
        #expect(await server.terminate() == 0)
        #expect(!server.standardOutput.contains("reload-Pa55") && !server.standardError.contains("reload-Pa55"))
        await simulatorServer.stop()
        try? FileManager.default.removeItem(atPath: directory)
    }

    @Test func withoutTheLifecycleFlagPostReloadIsForbiddenButSIGHUPStillReloads() async throws {
        var configuration = WinPowerSimulator.Configuration()
        configuration.deviceCount = 1
        let simulatorServer = SimulatorServer(simulator: WinPowerSimulator(configuration: configuration))
        let simulatorPort = try await simulatorServer.start().port
        let directory = RuntimeBinaryTests.temporaryDirectory()
        let server = try LaunchedExporter([
            "server", "--port", "0", "--server.host", "127.0.0.1", "--data-dir", directory,
            "--winpower.base_url", "http://127.0.0.1:\(simulatorPort)", "--winpower.username", "admin",
        ], environment: ["WINPOWER_EXPORTER_WINPOWER_PASSWORD": configuration.password])
        try await server.waitFor("the metrics URL") { server.printedPort(after: "metrics:") != nil }
        let port = try #require(server.printedPort(after: "metrics:"))
        #expect(try await Self.request(port, "POST", "/-/reload").status == 403)
        server.signal(SIGHUP)
        try await server.waitFor("the reload logged") { server.standardOutput.contains("\"configuration reloaded\"") }
        #expect(await server.terminate() == 0)
        await simulatorServer.stop()
        try? FileManager.default.removeItem(atPath: directory)
    }
}
