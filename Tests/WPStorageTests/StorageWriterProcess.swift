import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// A `wpbench --child storage-writer DIR` process: saves state in a loop (or holds the lock),
/// reporting `ready N` and `saved N` lines on stdout.
final class StorageWriterProcess {
    let process = Process()
    private let output = Pipe()
    private let input = Pipe()
    private var buffer = Data()

    /// The `wpbench` binary built next to this test bundle (`swift build` builds it).
    static func binary() throws -> URL {
        let directory = Bundle.module.bundleURL.deletingLastPathComponent()
        let url = directory.appendingPathComponent("wpbench")
        try #require(FileManager.default.isExecutableFile(atPath: url.path),
                     "wpbench not found at \(url.path); build it with `swift build --product wpbench`")
        return url
    }

    init(directory: String, hold: Bool = false) throws {
        process.executableURL = try Self.binary()
        process.arguments = ["--child", "storage-writer", directory] + (hold ? ["hold"] : [])
        process.standardOutput = output
        process.standardInput = input
        process.standardError = FileHandle.nullDevice
        try process.run()
    }

    var pid: Int32 { process.processIdentifier }

    /// The next line of output, or `nil` at end of output.
    func readLine() -> String? {
        while true {
            if let newline = buffer.firstIndex(of: UInt8(ascii: "\n")) {
                let line = String(decoding: buffer[buffer.startIndex..<newline], as: UTF8.self)
                buffer.removeSubrange(buffer.startIndex...newline)
                return line
            }
            let chunk = output.fileHandleForReading.availableData
            if chunk.isEmpty { return nil }
            buffer.append(chunk)
        }
    }

    /// Every remaining line until the process's output ends.
    func remainingLines() -> [String] {
        var lines: [String] = []
        while let line = readLine() { lines.append(line) }
        return lines
    }

    /// Sends SIGKILL and waits for the process to be gone.
    func kill() {
        _ = Glibc.kill(pid, SIGKILL)
        process.waitUntilExit()
    }

    /// Closes stdin (a holding child then exits) and waits.
    func finish() {
        try? input.fileHandleForWriting.close()
        process.waitUntilExit()
    }
}
