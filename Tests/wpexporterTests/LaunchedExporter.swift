import Foundation
import Synchronization
import Testing

/// The built `wpexporter` binary started as a child process, its output collected as it comes.
final class LaunchedExporter: Sendable {
    private let process: Process
    private let out = OutputBuffer()
    private let err = OutputBuffer()

    init(_ arguments: [String], environment: [String: String] = [:]) throws {
        let process = Process()
        process.executableURL = try BinaryTests.binary()
        process.arguments = arguments
        process.environment = environment
        let outPipe = Pipe(), errPipe = Pipe()
        process.standardOutput = outPipe
        process.standardError = errPipe
        self.process = process
        let (out, err) = (self.out, self.err)
        // At end of file the handler is removed: left in place it is called again and again
        // with no data, and the pipe's dispatch source would outlive the handle that owns its
        // descriptor (closed when the handle goes away), which can crash libdispatch's event loop.
        outPipe.fileHandleForReading.readabilityHandler = { handle in
            let data = handle.availableData
            if data.isEmpty { handle.readabilityHandler = nil }
            out.append(data)
        }
        errPipe.fileHandleForReading.readabilityHandler = { handle in
            let data = handle.availableData
            if data.isEmpty { handle.readabilityHandler = nil }
            err.append(data)
        }
        try process.run()
    }

    /// A test that gave up early must not leave its exporter running (holding ports, pipes and
    /// data directories other tests may wait on).
    deinit {
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
    }

    var standardOutput: String { out.text }
    var standardError: String { err.text }

    /// Waits until `condition` holds, checking every 20 ms; fails after `limit` (a safety net
    /// against hangs, not a timing assertion).
    func waitFor(_ what: String, limit: Duration = .seconds(60), _ condition: () async -> Bool) async throws {
        let deadline = ContinuousClock.now + limit
        while !(await condition()) {
            guard ContinuousClock.now < deadline, process.isRunning else {
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
        kill(process.processIdentifier, number)
    }

    /// Sends SIGTERM and waits for the exit status.
    func terminate() async -> Int32 {
        process.terminate()
        return await exitStatus()
    }

    /// Waits for the exit status. A process still running after `limit` (a safety net against
    /// a hung shutdown, not a timing assertion) is killed and the test fails with its output.
    func exitStatus(limit: Duration = .seconds(60)) async -> Int32 {
        let process = self.process
        let deadline = ContinuousClock.now + limit
        while process.isRunning, ContinuousClock.now < deadline {
            try? await Task.sleep(for: .milliseconds(20))
        }
        if process.isRunning {
            Issue.record("the process did not exit within \(limit); killed. stdout: \(standardOutput) stderr: \(standardError)")
            kill(process.processIdentifier, SIGKILL)
        }
        return await withCheckedContinuation { continuation in
            Thread.detachNewThread {
                process.waitUntilExit()
                continuation.resume(returning: process.terminationStatus)
            }
        }
    }
}

/// Text received from a pipe so far.
final class OutputBuffer: Sendable {
    private let storage = Mutex("")
    func append(_ data: Data) { storage.withLock { $0 += String(decoding: data, as: UTF8.self) } }
    var text: String { storage.withLock { $0 } }
}
