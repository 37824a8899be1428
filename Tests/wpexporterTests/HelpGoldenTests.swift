import Foundation
import Testing
import WPTestThreads
import WPConfig
@testable import wpexporter

/// Help pages compared byte for byte with `Golden/help-*.txt`. Run with `UPDATE_GOLDEN=1`
/// to rewrite the golden files after an intended change.
@Suite(.ownThreads, .timeLimit(.minutes(3))) struct HelpGoldenTests {
    static let goldenDirectory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Golden")

    @Test(arguments: ["overview", "server", "demo", "simulate", "check-config", "healthcheck", "version", "help", "configuration"])
    func helpMatchesGolden(topic: String) async throws {
        let recorder = Recorder()
        let arguments = topic == "overview" ? ["--help"] : ["help", topic]
        let tool = CommandLineTool(environment: [:], files: .inMemory([:]), output: recorder.output, hooks: recorder.hooks())
        #expect(await tool.run(arguments) == 0)
        let golden = Self.goldenDirectory.appendingPathComponent("help-\(topic).txt")
        if ProcessInfo.processInfo.environment["UPDATE_GOLDEN"] == "1" {
            try FileManager.default.createDirectory(at: Self.goldenDirectory, withIntermediateDirectories: true)
            try recorder.out.write(to: golden, atomically: true, encoding: .utf8)
            return
        }
        let expected = try String(contentsOf: golden, encoding: .utf8)
        #expect(recorder.out == expected, "run UPDATE_GOLDEN=1 swift test --filter HelpGoldenTests after an intended change")
    }

    @Test func commandHelpFlagShowsTheSamePage() async {
        for command in ["server", "demo", "simulate", "check-config", "healthcheck", "version"] {
            let viaFlag = Recorder(), viaHelp = Recorder()
            _ = await CommandLineTool(environment: [:], files: .inMemory([:]), output: viaFlag.output, hooks: viaFlag.hooks())
                .run([command, "--help"])
            _ = await CommandLineTool(environment: [:], files: .inMemory([:]), output: viaHelp.output, hooks: viaHelp.hooks())
                .run(["help", command])
            #expect(viaFlag.out == viaHelp.out && !viaFlag.out.isEmpty)
        }
    }

    @Test func helpLinesFitAnEightyColumnTerminal() {
        for topic in ["server", "demo", "simulate", "version", "check-config", "healthcheck"] {
            for line in HelpText.page(topic).split(separator: "\n") {
                #expect(line.count <= 100, "\(topic): \(line)")
            }
        }
    }
}
