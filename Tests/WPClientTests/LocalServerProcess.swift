import Foundation
import Testing
import WPTestSupport

/// A helper server process a test starts (bound to port 0, the port read from its output) and
/// always kills by its PID.
final class LocalServerProcess {
    let child: ChildProcess
    let port: Int

    /// Finds `name` on `PATH`.
    static func executable(_ name: String) -> URL? {
        ChildProcess.executable(named: name).map { URL(fileURLWithPath: $0) }
    }

    /// Starts `executable` with `arguments` and reads its output until `portPattern`'s line
    /// (`ACCEPT 127.0.0.1:PORT`, `... port PORT ...`) reveals the port.
    init(executable: URL, arguments: [String], directory: URL? = nil,
         portAfter marker: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let child = try ChildProcess(executable.path, arguments, directory: directory?.path, errorOutput: .discarded)
        self.child = child
        // A helper that never prints its port within 30 s (a safety net, not a timing
        // assertion) is killed.
        let (text, found) = child.waitForOutput(limit: .seconds(30)) { Self.port(in: $0, after: marker) != nil }
        guard found, let port = Self.port(in: text, after: marker) else {
            child.signal(SIGKILL)
            throw CocoaError(.fileReadUnknown, userInfo: [NSLocalizedDescriptionKey: "helper server printed no port: \(text)"])
        }
        self.port = port
    }

    /// The number after `marker` once something follows it (the number is complete).
    private static func port(in text: String, after marker: String) -> Int? {
        guard let range = text.range(of: marker) else { return nil }
        let digits = text[range.upperBound...].prefix { $0.isNumber }
        guard !digits.isEmpty, text[range.upperBound...].dropFirst(digits.count).first != nil else { return nil }
        return Int(digits)
    }

    func stop() {
        child.signal(SIGKILL)
        _ = child.waitUntilDone()
    }
}

/// A fresh temporary directory, removed by `body`'s end.
func withTemporaryDirectory<T>(_ body: (URL) async throws -> T) async throws -> T {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("wpexporter-test-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: url) }
    return try await body(url)
}

/// Runs a command to completion; throws when it exits non-zero.
func runCommand(_ executable: URL, _ arguments: [String], in directory: URL) throws {
    let result = try ChildProcess.run(executable.path, arguments, directory: directory.path, errorOutput: .discarded)
    guard result.status == 0 else {
        throw CocoaError(.fileWriteUnknown, userInfo: [NSLocalizedDescriptionKey: "\(executable.lastPathComponent) failed"])
    }
}
