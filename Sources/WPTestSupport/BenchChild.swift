import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A `wpbench --child NAME ARGS...` process a test drives by its output lines and may kill:
/// the storage writer (WPStorageTests' crash tests), the history writer (WPHistoryTests').
package final class BenchChild {
    private let child: ChildProcess
    /// Bytes of standard output already returned as lines.
    private var consumed = 0

    /// The `wpbench` binary built next to the running test executable (`swift build` builds it).
    package static func binary() throws -> String {
        let directory = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath().deletingLastPathComponent()
        // The test bundle is an executable in the build directory, or (Darwin) inside a bundle there.
        for candidate in [directory, directory.deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()] {
            let path = candidate.appendingPathComponent("wpbench").path
            if FileManager.default.isExecutableFile(atPath: path) { return path }
        }
        throw ChildProcess.Failure(description: "wpbench not found beside \(directory.path); build it with `swift build --product wpbench`")
    }

    /// Starts `wpbench --child` with `arguments` (the child's name first).
    package init(_ arguments: [String], standardInput: Bool = false) throws {
        child = try ChildProcess(try Self.binary(), ["--child"] + arguments, standardInput: standardInput, errorOutput: .discarded)
    }

    package var pid: Int32 { child.pid }

    /// The next line of output, or `nil` at end of output.
    package func readLine() -> String? {
        let consumed = self.consumed
        let (text, found) = child.waitForOutput { Array($0.utf8).dropFirst(consumed).contains(UInt8(ascii: "\n")) }
        guard found else { return nil }
        let rest = Array(text.utf8).dropFirst(consumed)
        guard let newline = rest.firstIndex(of: UInt8(ascii: "\n")) else { return nil }
        self.consumed = newline + 1
        return String(decoding: rest[..<newline], as: UTF8.self)
    }

    /// Every remaining line until the process's output ends.
    package func remainingLines() -> [String] {
        var lines: [String] = []
        while let line = readLine() { lines.append(line) }
        return lines
    }

    /// Sends SIGKILL and waits for the process to be gone.
    package func kill() {
        child.signal(SIGKILL)
        _ = child.waitUntilDone()
    }

    /// Closes stdin (a child waiting on it then exits) and waits.
    package func finish() {
        child.closeInput()
        _ = child.waitUntilDone()
    }
}
