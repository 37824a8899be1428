import Foundation
import Testing
import WPTestThreads

/// A data directory or log file that cannot be used is reported with its configuration key.
@Suite(.ownThreads, .timeLimit(.minutes(3))) struct SettingErrorTests {
    static let credentials = ["--winpower.base_url", "http://127.0.0.1:1", "--winpower.username", "u",
                              "--winpower.password", "p"]

    @Test func aDataDirectoryThatIsAFileIsAConfigurationErrorForCheckConfigAndServer() async throws {
        try await BinaryTests.withTemporaryDirectory { directory in
            let file = directory.appendingPathComponent("data")
            try Data("not a directory".utf8).write(to: file)
            for command in ["check-config", "server"] {
                let result = try await BinaryTests.run([command, "--data-dir", file.path, "--port", "0"] + Self.credentials,
                                                 in: directory, environment: ["HOME": directory.path])
                #expect(result.status == 78, "\(command): \(result.err)")
                #expect(result.err.contains("flag --data-dir: storage.data_dir: \"\(file.path)\" is not a directory"), "\(command)")
            }
        }
    }

    @Test func aLogFileThatCannotBeOpenedNamesItsKey() async throws {
        try await BinaryTests.withTemporaryDirectory { directory in
            let blocker = directory.appendingPathComponent("blocker")
            try Data("a file".utf8).write(to: blocker)
            let path = blocker.path + "/wpexporter.log"
            let asPath = try await BinaryTests.run(["server", "--logging.output", path, "--port", "0", "--data-dir",
                                              directory.appendingPathComponent("d").path] + Self.credentials,
                                             in: directory, environment: ["HOME": directory.path])
            #expect(asPath.status == 1)
            #expect(asPath.err.hasPrefix("logging.output: "), "\(asPath.err)")
            let asFile = try await BinaryTests.run(["server", "--logging.output", "file", "--logging.file_path", path, "--port", "0",
                                              "--data-dir", directory.appendingPathComponent("d").path] + Self.credentials,
                                             in: directory, environment: ["HOME": directory.path])
            #expect(asFile.status == 1)
            #expect(asFile.err.hasPrefix("logging.file_path: "), "\(asFile.err)")
        }
    }
}
