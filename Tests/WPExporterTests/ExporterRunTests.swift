import Foundation
import Synchronization
import Testing
import WPTestThreads
import WPClient
import WPConfig
import WPLogging
import WPServer
import WPRuntime
import WPTestSupport
@testable import WPExporter
import WPWallClock

/// A log sink that lets a test wait for a record.
private final class LogWatcher: LogSink {
    private struct State {
        var records: [LogRecord] = []
        var waiters: [(predicate: @Sendable (LogRecord) -> Bool, continuation: CheckedContinuation<LogRecord, Never>)] = []
    }

    private let state = Mutex(State())

    func write(_ record: LogRecord) {
        let ready = state.withLock { state -> [CheckedContinuation<LogRecord, Never>] in
            state.records.append(record)
            var ready: [CheckedContinuation<LogRecord, Never>] = []
            state.waiters.removeAll { waiter in
                guard waiter.predicate(record) else { return false }
                ready.append(waiter.continuation)
                return true
            }
            return ready
        }
        for continuation in ready { continuation.resume(returning: record) }
    }

    var records: [LogRecord] { state.withLock { $0.records } }

    /// The first record (logged so far or later) that matches `predicate`.
    func first(where predicate: @escaping @Sendable (LogRecord) -> Bool) async -> LogRecord {
        await withCheckedContinuation { continuation in
            let found = state.withLock { state -> LogRecord? in
                if let record = state.records.first(where: predicate) { return record }
                state.waiters.append((predicate, continuation))
                return nil
            }
            if let found { continuation.resume(returning: found) }
        }
    }
}

/// `Exporter.run` in process: what ends it, and what does not.
@Suite(.ownThreads, .timeLimit(.minutes(3))) struct ExporterRunTests {
    private func makeExporter(logs: LogWatcher) throws -> (Exporter<ManualClock>, String) {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("wpexporter-run-\(UUID().uuidString)").path
        let configuration = ExporterHarness.configuration(baseURL: "http://127.0.0.1:9", username: "admin",
                                                          password: "pw", dataDirectory: directory)
        let exporter = try Exporter(configuration: configuration, client: ClientStub([.success(.make())]),
                                    clock: ManualClock(), wallClock: .system,
                                    logger: WPLogger(label: "test", level: .debug, sink: logs))
        return (exporter, directory)
    }

    /// The reload stream ends at once (a part ending on its own): the exporter logs it as an
    /// error and keeps serving; only its trigger stops it.
    @Test func aPartThatEndsEarlyIsLoggedAndOnlyTheTriggerStopsTheExporter() async throws {
        let logs = LogWatcher()
        let (exporter, directory) = try makeExporter(logs: logs)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let (reloads, reloadsEnd) = AsyncStream<Void>.makeStream()
        reloadsEnd.finish()
        let (trigger, pull) = AsyncStream<Void>.makeStream()
        let (listening, announce) = AsyncStream<Int>.makeStream()
        let run = Task {
            try await exporter.run(onListening: { announce.yield($0.port) }, reloadRequests: reloads,
                                   until: { for await _ in trigger {} })
        }
        var ports = listening.makeAsyncIterator()
        let port = try #require(await ports.next())

        // Should the run end instead (the defect this guards against), a record says so and the
        // test fails instead of waiting for ever.
        let ended = Task {
            _ = try? await run.value
            logs.write(LogRecord(time: .now(), level: .info, message: "test: the run ended", logger: "test", fields: [:]))
        }
        let failure = await logs.first { $0.message.contains("stopped on its own") || $0.message == "test: the run ended" }
        #expect(failure.level == .error)
        #expect(failure.message.contains("reload"))
        // Still serving after the part ended.
        let connection = try await TestHTTPClient.connect(port: port)
        try await connection.send("GET /-/healthy HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n")
        let response = try await connection.readResponse()
        connection.close()
        #expect(response.status == 200)
        #expect(!logs.records.contains { $0.message == "shutting down" }, "nothing but the trigger shuts down")

        pull.finish()
        try await run.value
        await ended.value
        #expect(logs.records.contains { $0.message == "shutting down" })
        #expect(logs.records.contains { $0.message == "energy persisted" })
    }
}
