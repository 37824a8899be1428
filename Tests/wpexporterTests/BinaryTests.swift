import Foundation
import Synchronization
import Testing
import WPTestThreads
import WPTestSupport
import WPExporter

/// Runs the built `wpexporter` executable as a process: what users get, including `main`.
@Suite(.ownThreads, .timeLimit(.minutes(3))) struct BinaryTests {
    struct Result {
        var status: Int32
        var out: String
        var err: String
    }

    /// The `wpexporter` binary next to the test bundle in `.build`.
    static func binary() throws -> URL {
        var directory = Bundle.main.bundleURL
        for _ in 0..<4 {
            let candidate = directory.appendingPathComponent("wpexporter")
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
            directory.deleteLastPathComponent()
        }
        throw CocoaError(.fileNoSuchFile, userInfo: [NSFilePathErrorKey: "wpexporter near \(Bundle.main.bundleURL.path)"])
    }

    /// Runs the binary to its end; the calling task suspends (the child is read and reaped on
    /// threads of ``ChildProcess``'s own, never on Swift's pool).
    static func run(_ arguments: [String], in directory: URL? = nil, environment: [String: String] = [:]) async throws -> Result {
        let child = try ChildProcess(try binary().path, arguments, environment: environment, directory: directory?.path)
        let status = await child.exitStatus(limit: .seconds(120))
        return Result(status: status, out: child.standardOutput, err: child.standardError)
    }

    /// A fresh directory used as working directory and HOME, so no real configuration is found.
    static func withTemporaryDirectory<T>(_ body: (URL) async throws -> T) async throws -> T {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("wpexporter-test-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        return try await body(directory)
    }

    @Test func helpMatchesTheGolden() async throws {
        let result = try await Self.run(["--help"])
        #expect(result.status == 0)
        let golden = try String(contentsOf: HelpGoldenTests.goldenDirectory.appendingPathComponent("help-overview.txt"), encoding: .utf8)
        #expect(result.out == golden)
        #expect(result.err.isEmpty)
    }

    @Test func versionAsTextAndJSON() async throws {
        let text = try await Self.run(["version"])
        #expect(text.status == 0)
        #expect(text.out.hasPrefix("wpexporter \(BuildInfo.exporterVersion)\n"))
        let json = try await Self.run(["version", "--format", "json"])
        #expect(json.status == 0)
        let object = try JSONSerialization.jsonObject(with: Data(json.out.utf8)) as? [String: String]
        #expect(object?["version"] == BuildInfo.exporterVersion)
        #expect(Set(object?.keys.map { $0 } ?? []) == ["version", "swift", "platform", "arch", "build_date", "git_commit"])
        #expect(object?["build_date"]?.count == 19)
    }

    @Test func checkConfigReadsTheWorkingDirectoryFileAndMasksSecrets() async throws {
        try await Self.withTemporaryDirectory { directory in
            let file = directory.appendingPathComponent("config.yaml")
            try "server:\n  port: 9333\nwinpower:\n  base_url: https://wp.example\n  username: u\n  password: binary-secret\n"
                .write(to: file, atomically: true, encoding: .utf8)
            try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: file.path)
            let result = try await Self.run(["check-config", "--log-level=warn"], in: directory, environment: ["HOME": directory.path])
            #expect(result.status == 0, "\(result.err)")
            #expect(result.out.hasPrefix("configuration file: ./config.yaml\n"))
            #expect(result.out.contains("file ./config.yaml:2:9"))
            #expect(result.out.contains("flag --log-level"))
            #expect(!result.out.contains("binary-secret") && !result.err.contains("binary-secret"))
            #expect(result.err.contains("readable by other users (mode 0644)"))
        }
    }

    /// `ulimit -n 20` cannot serve a single connection beside what the process holds: the
    /// server exits 78 naming the limit and what to raise it to, instead of running deaf.
    @Test func anOpenFilesLimitTooLowToServeExits78WithTheNumbers() async throws {
        try await Self.withTemporaryDirectory { directory in
            let file = directory.appendingPathComponent("config.yaml")
            try "server:\n  port: 0\nstorage:\n  data_dir: \(directory.path)/data\nwinpower:\n  base_url: http://127.0.0.1:9\n  username: u\n  password: limit-secret\n"
                .write(to: file, atomically: true, encoding: .utf8)
            let child = try ChildProcess("/bin/sh", ["-c", "ulimit -n 20 && exec \"$0\" \"$@\"", try Self.binary().path,
                                                      "server", "--config", file.path],
                                         environment: ["HOME": directory.path], directory: directory.path)
            let status = await child.exitStatus(limit: .seconds(120))
            #expect(status == 78, "\(child.standardError)")
            #expect(child.standardError.contains("the open files limit (ulimit -n) is 20, too low to serve"))
            #expect(child.standardError.contains("raise the limit"))
            #expect(!child.standardError.contains("limit-secret") && !child.standardOutput.contains("limit-secret"))
            #expect(!FileManager.default.fileExists(atPath: directory.appendingPathComponent("data/wpexporter.lock").path))
        }
    }

    @Test func exitCodesFromTheProcess() async throws {
        try await Self.withTemporaryDirectory { directory in
            let invalid = try await Self.run(["check-config", "--port", "65536"], in: directory, environment: ["HOME": directory.path])
            #expect(invalid.status == 78)
            #expect(invalid.err.contains("flag --port: server.port: 65536 is out of range; must be 0–65535"))
            // Port 0 (any free port) is valid from a flag, the environment and the file alike, as for `server`.
            let flag = try await Self.run(["check-config", "--port", "0", "--winpower.base_url", "http://127.0.0.1:1",
                                     "--winpower.username", "u", "--winpower.password", "p"], in: directory, environment: ["HOME": directory.path])
            #expect(flag.status == 0, "\(flag.err)")
            let environment = try await Self.run(["check-config", "--winpower.base_url", "http://127.0.0.1:1", "--winpower.username", "u",
                                            "--winpower.password", "p"],
                                           in: directory, environment: ["HOME": directory.path, "WINPOWER_EXPORTER_SERVER_PORT": "0"])
            #expect(environment.status == 0, "\(environment.err)")
            let missing = try await Self.run(["check-config", "-c", "nope.yaml"], in: directory, environment: [:])
            #expect(missing.status == 78)
            #expect(missing.err.contains("configuration file \"nope.yaml\" does not exist"))
            let usage = try await Self.run(["server", "--prot=1"], in: directory, environment: [:])
            #expect(usage.status == 64)
            #expect(usage.err.contains("did you mean --port?"))
        }
    }
}
