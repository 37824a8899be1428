import Foundation
import Testing
import WPTestSupport
#if canImport(Glibc)
import Glibc
#endif

/// A `wpbench --child storage-writer DIR` process: saves state in a loop (or holds the lock),
/// reporting `ready N` and `saved N` lines on stdout.
final class StorageWriterProcess {
    private let child: ChildProcess
    /// Bytes of standard output already returned as lines.
    private var consumed = 0

    /// The `wpbench` binary built next to this test bundle (`swift build` builds it).
    static func binary() throws -> URL {
        let directory = Bundle.module.bundleURL.deletingLastPathComponent()
        let url = directory.appendingPathComponent("wpbench")
        try #require(FileManager.default.isExecutableFile(atPath: url.path),
                     "wpbench not found at \(url.path); build it with `swift build --product wpbench`")
        return url
    }

    init(directory: String, hold: Bool = false) throws {
        child = try ChildProcess(try Self.binary().path, ["--child", "storage-writer", directory] + (hold ? ["hold"] : []),
                                 standardInput: true, errorOutput: .discarded)
    }

    var pid: Int32 { child.pid }

    /// The next line of output, or `nil` at end of output.
    func readLine() -> String? {
        let consumed = self.consumed
        let (text, found) = child.waitForOutput { Array($0.utf8).dropFirst(consumed).contains(UInt8(ascii: "\n")) }
        guard found else { return nil }
        let rest = Array(text.utf8).dropFirst(consumed)
        guard let newline = rest.firstIndex(of: UInt8(ascii: "\n")) else { return nil }
        self.consumed = newline + 1
        return String(decoding: rest[..<newline], as: UTF8.self)
    }

    /// Every remaining line until the process's output ends.
    func remainingLines() -> [String] {
        var lines: [String] = []
        while let line = readLine() { lines.append(line) }
        return lines
    }

    /// Sends SIGKILL and waits for the process to be gone.
    func kill() {
        child.signal(SIGKILL)
        _ = child.waitUntilDone()
    }

    /// Closes stdin (a holding child then exits) and waits.
    func finish() {
        child.closeInput()
        _ = child.waitUntilDone()
    }
}
