import Foundation
import Testing
import WPTestThreads
import WPServer
import WPSimulator
import WPTestSupport

/// The data directory deleted, then made unusable under the running binary: recreated at the
/// next save, then `/health` unhealthy, and SIGTERM exits 74 naming where the totals are.
@Suite(.ownThreads, .timeLimit(.minutes(3)), .serialized) struct DataDirectoryBinaryTests {
    @Test func aDeletedDataDirectoryIsRecreatedAndAShutdownThatCannotSaveExits74() async throws {
        var configuration = WinPowerSimulator.Configuration()
        configuration.deviceCount = 3
        let simulatorServer = SimulatorServer(simulator: WinPowerSimulator(configuration: configuration))
        let simulatorPort = try await simulatorServer.start().port
        let dataDirectory = RuntimeBinaryTests.temporaryDirectory()
        let moved = dataDirectory + ".moved"
        defer {
            try? FileManager.default.removeItem(atPath: dataDirectory)
            try? FileManager.default.removeItem(atPath: moved)
        }
        let server = try LaunchedExporter([
            "server", "--port", "0", "--server.host", "127.0.0.1",
            "--winpower.base_url", "http://127.0.0.1:\(simulatorPort)", "--winpower.username", "admin",
            "--data-dir", dataDirectory, "--scheduler.collection_interval", "1s",
        ], environment: ["WINPOWER_EXPORTER_WINPOWER_PASSWORD": "admin"])
        try await server.waitFor("the metrics URL") { server.printedPort(after: "metrics:") != nil }
        let port = try #require(server.printedPort(after: "metrics:"))
        let stateFile = dataDirectory + "/energy.state"
        try await server.waitFor("a first save") { FileManager.default.fileExists(atPath: stateFile) }

        // Renamed first, then deleted: a save in progress cannot make the removal fail.
        try FileManager.default.moveItem(atPath: dataDirectory, toPath: dataDirectory + ".deleted")
        try FileManager.default.removeItem(atPath: dataDirectory + ".deleted")
        try await server.waitFor("the data directory to be recreated with its lock and state") {
            FileManager.default.fileExists(atPath: stateFile)
                && FileManager.default.fileExists(atPath: dataDirectory + "/wpexporter.lock")
        }
        #expect(server.standardOutput.contains("data directory disappeared while running"))
        #expect(try await RuntimeBinaryTests.get(port, "/health").status == 200)

        // Moved away and replaced by a file: it cannot be recreated.
        try FileManager.default.moveItem(atPath: dataDirectory, toPath: moved)
        _ = FileManager.default.createFile(atPath: dataDirectory, contents: Data())
        try await server.waitFor("/health to say unhealthy") {
            (try? await RuntimeBinaryTests.get(port, "/health"))?.status == 503
        }
        let health = try await RuntimeBinaryTests.get(port, "/health").text
        #expect(health.contains(#""last_save_successful":false"#))
        #expect(await server.terminate() == 74)
        #expect(server.standardError.contains("energy totals not saved on shutdown"))
        #expect(server.standardError.contains("the last saved totals are in \(moved)/energy.state"))
        #expect(server.standardOutput.contains("could not persist energy on shutdown"))
        await simulatorServer.stop()
    }
}
