import Foundation
import Testing
import WPTestThreads
import WPConfig
import WPLogging
@testable import WPExporter
#if canImport(Glibc)
import Glibc
import WPWallClock
#endif

/// Files the configuration names are read with a bound (``FileAccess/textFileLimit``): a huge
/// one is refused naming the file and the limit, without being read whole, at start,
/// `check-config` and reload (where the running configuration stays); a FIFO is named as one.
@Suite(.ownThreads, .timeLimit(.minutes(3))) struct BoundedFileReadTests {
    /// A private directory under the system's temporary directory.
    struct Scratch {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("wpexporter-bounds-\(UUID().uuidString)").path

        init() throws { try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true) }

        /// Writes `text` to `name`, then, with `size`, extends it with a hole to `size` bytes
        /// (a sparse file: no disk space, reads as zeros).
        func file(_ name: String, _ text: String, size: Int? = nil) throws -> String {
            let file = path + "/" + name
            try Data(text.utf8).write(to: URL(fileURLWithPath: file))
            if let size { #expect(truncate(file, off_t(size)) == 0) }
            return file
        }

        func remove() { try? FileManager.default.removeItem(atPath: path) }
    }

    static let twoGB = 2 << 30
    static let base = """
        winpower:
          base_url: https://winpower.example.com
          username: admin
          password: hunter2

        """

    static func load(_ config: String) throws -> LoadedConfiguration {
        try ConfigurationLoader.load(ConfigurationInputs(configPath: config, files: .system))
    }

    static func message(_ body: () throws -> Void) -> String? {
        do { try body() } catch { return "\(error)" }
        return nil
    }

    @Test func aSparse2GBConfigurationFileIsRefusedNamingTheFileAndTheLimit() throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let config = try scratch.file("config.yaml", Self.base, size: Self.twoGB)
        let message = try #require(Self.message { _ = try Self.load(config) })
        #expect(message.contains(config))
        #expect(message.contains("larger than 1 MiB (1048576 bytes)"))
    }

    @Test(arguments: ["nut.users_file", "snmp.users_file", "server.web_config_file"])
    func aSparse2GBFileNamedByTheConfigurationIsRefusedNamingTheFileAndTheLimit(key: String) throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let huge = try scratch.file("huge.yaml", "users:\n", size: Self.twoGB)
        let parts = key.split(separator: ".")
        let extra = "\(parts[0]):\n  \(parts[1]): \(huge)\n"
        let config = try scratch.file("config.yaml", Self.base + extra)
        let message = try #require(Self.message {
            let loaded = try Self.load(config)
            _ = try loadWebSecurity(path: loaded.configuration.server.webConfigFile)
        })
        #expect(message.contains(huge))
        #expect(message.contains("larger than 1 MiB (1048576 bytes)"))
    }

    /// A FIFO with no writer: opened without blocking and named, not "permission denied".
    @Test func aFIFOConfigurationIsNamedAsOneAndTheReadDoesNotBlock() throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let fifo = scratch.path + "/config.yaml"
        #expect(mkfifo(fifo, 0o600) == 0)
        let message = try #require(Self.message { _ = try Self.load(fifo) })
        #expect(message.contains(fifo))
        #expect(message.contains("FIFO"))
        #expect(!message.contains("permission denied"))
    }

    /// A reload from a file grown to 2 GB is rejected naming the file and the limit; nothing is
    /// applied, and the next reload from a fixed file applies.
    @Test func aReloadFromAnOversizedFileKeepsTheRunningConfiguration() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let config = try scratch.file("config.yaml", Self.base)
        _ = try Self.load(config)
        let inputs = ConfigurationInputs(configPath: config, files: .system)
        let reloader = ConfigReloader(load: { try ConfigurationLoader.load(inputs) },
                                      apply: { _ in ConfigReloader.Applied(summary: "applied") },
                                      logger: .disabled, wallClock: .system)
        #expect(truncate(config, off_t(Self.twoGB)) == 0)
        guard case .rejected(let reason) = await reloader.reload(trigger: "test") else {
            Issue.record("an oversized configuration was applied")
            return
        }
        #expect(reason.contains(config))
        #expect(reason.contains("larger than 1 MiB (1048576 bytes)"))
        #expect(reloader.status.lastSuccessful == false)

        _ = try scratch.file("config.yaml", Self.base)
        #expect(await reloader.reload(trigger: "test") == .applied(ConfigReloader.Applied(summary: "applied")))
    }

    @Test func aFileOfExactlyTheLimitIsRead() throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let text = String(repeating: "#", count: FileAccess.textFileLimit - 1) + "\n"
        let file = try scratch.file("limit.yaml", text)
        #expect(try FileAccess.system.read(file).get() == text)
        let over = try scratch.file("over.yaml", text + "\n")
        #expect(throws: FileAccessError.self) { try FileAccess.system.read(over).get() }
    }
}
