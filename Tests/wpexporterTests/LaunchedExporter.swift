import Foundation
import Testing
import WPTestSupport

/// The built `wpexporter` binary started as a child process, its output collected as it comes
/// (``ChildProcess``: no Foundation `Process`, no Dispatch sources on its pipes).
final class LaunchedExporter: Sendable {
    private let child: ChildProcess

    init(_ arguments: [String], environment: [String: String] = [:]) throws {
        child = try ChildProcess(try BinaryTests.binary().path, arguments, environment: environment)
    }

    var standardOutput: String { child.standardOutput }
    var standardError: String { child.standardError }

    /// Waits until `condition` holds, checking every 20 ms; fails after `limit` (a safety net
    /// against hangs, not a timing assertion).
    func waitFor(_ what: String, limit: Duration = .seconds(60), _ condition: () async -> Bool) async throws {
        let deadline = ContinuousClock.now + limit
        while !(await condition()) {
            guard ContinuousClock.now < deadline, child.isRunning else {
                Issue.record("gave up waiting for \(what); stdout: \(standardOutput) stderr: \(standardError)")
                throw CancellationError()
            }
            try await Task.sleep(for: .milliseconds(20))
        }
    }

    /// The port of the first `http://127.0.0.1:PORT<path>` URL printed after `label` (on
    /// standard output or standard error).
    func printedPort(after label: String) -> Int? {
        guard let line = (standardOutput + "\n" + standardError).split(separator: "\n").first(where: { $0.contains(label) }),
              let range = line.range(of: "http://127.0.0.1:") else { return nil }
        return Int(line[range.upperBound...].prefix { $0.isNumber })
    }

    /// Sends `number` to the process.
    func signal(_ number: Int32) {
        child.signal(number)
    }

    /// Sends SIGTERM and waits for the exit status.
    func terminate() async -> Int32 {
        child.signal(SIGTERM)
        return await exitStatus()
    }

    /// Waits for the exit status. A process still running after `limit` (a safety net against
    /// a hung shutdown, not a timing assertion) is killed and the test fails with its output.
    func exitStatus(limit: Duration = .seconds(60)) async -> Int32 {
        let status = await child.exitStatus(limit: limit)
        if status == 128 + SIGKILL {
            Issue.record("the process did not exit within \(limit); killed. stdout: \(standardOutput) stderr: \(standardError)")
        }
        return status
    }
}
