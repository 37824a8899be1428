import Foundation
import Testing

/// A helper server process a test starts (bound to port 0, the port read from its output) and
/// always kills by its PID.
final class LocalServerProcess {
    let process: Process
    let port: Int

    /// Finds `name` on `PATH`.
    static func executable(_ name: String) -> URL? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        for directory in path.split(separator: ":") {
            let url = URL(fileURLWithPath: String(directory)).appendingPathComponent(name)
            if FileManager.default.isExecutableFile(atPath: url.path) { return url }
        }
        return nil
    }

    /// Starts `executable` with `arguments` and reads its output until `portPattern`'s line
    /// (`ACCEPT 127.0.0.1:PORT`, `... port PORT ...`) reveals the port.
    init(executable: URL, arguments: [String], directory: URL? = nil,
         portAfter marker: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        if let directory { process.currentDirectoryURL = directory }
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        self.process = process
        // Failure path only: a helper that never prints its port is killed, so the read
        // below sees end-of-file instead of blocking forever.
        let pid = process.processIdentifier
        let watchdog = DispatchWorkItem { kill(pid, SIGKILL) }
        DispatchQueue.global().asyncAfter(deadline: .now() + 30, execute: watchdog)
        defer { watchdog.cancel() }
        var text = ""
        var found: Int?
        while found == nil {
            let chunk = output.fileHandleForReading.availableData
            if chunk.isEmpty { break } // EOF: the process died
            text += String(decoding: chunk, as: UTF8.self)
            if let range = text.range(of: marker) {
                let digits = text[range.upperBound...].prefix { $0.isNumber }
                if !digits.isEmpty, text[range.upperBound...].dropFirst(digits.count).first != nil { found = Int(digits) }
            }
        }
        guard let found else {
            process.terminate()
            throw CocoaError(.fileReadUnknown, userInfo: [NSLocalizedDescriptionKey: "helper server printed no port: \(text)"])
        }
        port = found
    }

    func stop() {
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
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
    let process = Process()
    process.executableURL = executable
    process.arguments = arguments
    process.currentDirectoryURL = directory
    process.standardOutput = FileHandle.nullDevice
    process.standardError = FileHandle.nullDevice
    try process.run()
    process.waitUntilExit()
    guard process.terminationStatus == 0 else {
        throw CocoaError(.fileWriteUnknown, userInfo: [NSLocalizedDescriptionKey: "\(executable.lastPathComponent) failed"])
    }
}
