import Foundation
import Testing
import WPTestThreads
import WPServer
import WPSimulator

/// `wpexporter demo` as a newcomer runs it: next to something already on its port.
@Suite(.ownThreads, .timeLimit(.minutes(4)), .serialized) struct DemoBinaryTests {
    /// The temporary data directory the demo printed (`energy state in DIR (temporary)`).
    static func temporaryDirectory(in output: String) -> String? {
        guard let line = output.split(separator: "\n").first(where: { $0.hasPrefix("energy state in ") }),
              line.hasSuffix(" (temporary)") else { return nil }
        return String(line.dropFirst("energy state in ".count).dropLast(" (temporary)".count))
    }

    @Test(arguments: [SIGTERM, SIGINT])
    func demoOnATakenPortFallsBackAndStillStopsOnASignalRemovingItsTemporaryDirectory(_ signal: Int32) async throws {
        // Something already listens on the loopback port the demo is given.
        let occupant = SimulatorServer(simulator: WinPowerSimulator())
        let taken = try await occupant.start().port
        let demo = try LaunchedExporter(["demo", "--port", "\(taken)"])
        try await demo.waitFor("the live values") { demo.standardOutput.contains("live values") }
        // Standard error has a writer thread of its own: its line may arrive after standard output's.
        try await demo.waitFor("the note on standard error") { demo.standardError.contains("using a free port instead") }
        // Kept in the screen's heading, which every redraw prints again.
        #expect(demo.standardOutput.contains("note: ") && demo.standardOutput.contains("using a free port instead"))
        let port = try #require(demo.printedPort(after: "metrics:"))
        #expect(port != taken)
        #expect(demo.standardOutput.contains("not a terminal, so printed once"))
        let directory = try #require(Self.temporaryDirectory(in: demo.standardOutput))
        #expect(FileManager.default.fileExists(atPath: directory))
        demo.signal(signal)
        #expect(await demo.exitStatus() == 0)
        #expect(!FileManager.default.fileExists(atPath: directory), "the temporary data directory is removed")
        #expect(demo.standardOutput.contains("discarded with the temporary directory \(directory)"))
        await occupant.stop()
    }

    @Test func demoWithADataDirectorySaysTheEnergyTotalsAreKept() async throws {
        let dataDirectory = RuntimeBinaryTests.temporaryDirectory()
        let demo = try LaunchedExporter(["demo", "--port", "0", "--data-dir", dataDirectory])
        try await demo.waitFor("the live values") { demo.standardOutput.contains("live values") }
        #expect(await demo.terminate() == 0)
        #expect(demo.standardOutput.contains("kept in \(dataDirectory)"))
        #expect(FileManager.default.fileExists(atPath: dataDirectory + "/energy.state"))
        try? FileManager.default.removeItem(atPath: dataDirectory)
    }
}
