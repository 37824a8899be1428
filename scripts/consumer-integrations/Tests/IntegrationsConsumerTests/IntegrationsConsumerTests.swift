#if os(Linux)
import FoundationEssentials
import IntegrationsConsumer
import Synchronization
import Testing
import WPExporterTesting
import WPLogging
import WPMetrics
import WPSimulator

/// Keeps every record; `wait(for:)` returns once a record with that message was written.
final class RecordingSink: LogSink {
    private let state = Mutex<(records: [LogRecord], waiters: [(String, CheckedContinuation<LogRecord, Never>)])>(([], []))

    func write(_ record: LogRecord) {
        let ready = state.withLock { state in
            state.records.append(record)
            defer { state.waiters.removeAll { $0.0 == record.message } }
            return state.waiters.filter { $0.0 == record.message }
        }
        for (_, waiter) in ready { waiter.resume(returning: record) }
    }

    func wait(for message: String) async -> LogRecord {
        await withCheckedContinuation { (continuation: CheckedContinuation<LogRecord, Never>) in
            let found = state.withLock { state in
                let found = state.records.first { $0.message == message }
                if found == nil { state.waiters.append((message, continuation)) }
                return found
            }
            if let found { continuation.resume(returning: found) }
        }
    }
}

struct TimedOut: Error { let what: String }

/// `body`'s result, or ``TimedOut`` after `limit`; `body` is then cancelled and left behind.
func within<T: Sendable>(_ limit: Duration, _ what: String,
                         _ body: @escaping @Sendable () async throws -> T) async throws -> T {
    let first = Mutex<CheckedContinuation<T, any Error>?>(nil)
    let resolve: @Sendable (Result<T, any Error>) -> Void = { result in
        first.withLock { continuation in
            defer { continuation = nil }
            return continuation
        }?.resume(with: result)
    }
    return try await withCheckedThrowingContinuation { continuation in
        first.withLock { $0 = continuation }
        let work = Task {
            do { resolve(.success(try await body())) } catch { resolve(.failure(error)) }
        }
        Task {
            try? await Task.sleep(for: limit)
            work.cancel()
            resolve(.failure(TimedOut(what: what)))
        }
    }
}

@Suite struct IntegrationsConsumerTests {
    @Test func bridgesAndLifecycleFromPublishedPackages() async throws {
        let registry = MetricRegistry()
        let sink = RecordingSink()
        bootstrapIntegrations(registry: registry, log: WPLogger(label: "shop", sink: sink))
        let service = ShopService(registry: registry, log: WPLogger(label: "shop", sink: sink))
        let running = Task { try await service.group.run() }
        defer { running.cancel() }

        let address = try await within(.seconds(60), "the server to listen") { try await service.server.waitUntilListening() }
        let job = try await within(.seconds(60), "the job's log line") { await sink.wait(for: "job done") }
        #expect(job.logger == "shop.job")
        #expect(job.fields["password"] == .string(Redactor.mask))

        let response = try await within(.seconds(60), "a scrape") {
            try await LoopbackClient().send(url: "http://127.0.0.1:\(address.port)/metrics",
                                            headers: [("Accept", "application/openmetrics-text; version=1.0.0")])
        }
        let body = response.text
        #expect(response.status == 200)
        #expect(body.contains("# UNIT shop_job_seconds seconds\n"))
        #expect(body.contains("shop_job_seconds_sum 0.019\n"))
        #expect(body.contains("shop_job_seconds_count 2\n"))
        #expect(body.contains("shop_scrapes_total 1\n"))

        await service.group.triggerGracefulShutdown()
        try await within(.seconds(60), "the group to stop") { try await running.value }
        #expect(service.scheduler.statistics.completed == 1)
        _ = try await within(.seconds(60), "the server's stop line") { await sink.wait(for: "http server stopped") }
    }
}
#endif

#if os(Linux)
import WPConfig
import WPExporter
import WPServer

/// The exporter embedded as a Service from the tag: it fails loudly (a taken NUT port ends the
/// group naming `nut.listen`), checks a configuration built in code, and saves its totals when
/// the group stops.
@Suite struct EmbeddedExporterTests {
    static func configuration(baseURL: String) -> ExporterConfiguration {
        var configuration = ExporterConfiguration()
        configuration.storage.dataDirectory = "/tmp/consumer-exporter-\(UInt64.random(in: 0...UInt64.max))"
        configuration.storage.syncWrite = false
        configuration.scheduler.collectionInterval = .seconds(1)
        configuration.winPower.baseURL = baseURL
        configuration.winPower.username = "admin"
        configuration.winPower.password = Secret("admin")
        return configuration
    }

    @Test func aTakenNUTPortEndsTheGroupNamingTheKey() async throws {
        let taken = try ReservedPort(port: 0, mode: .silent)
        defer { taken.close() }
        var configuration = Self.configuration(baseURL: "http://127.0.0.1:9")
        configuration.nut.listen = "127.0.0.1:\(taken.port)"
        let embedded = try EmbeddedExporter(configuration: configuration, log: .disabled)
        do {
            try await within(.seconds(60), "the group to fail") { try await embedded.group.run() }
            Issue.record("the group ran on with a taken NUT port")
        } catch {
            #expect("\(error)".contains("nut.listen: cannot listen on 127.0.0.1:\(taken.port)"), "\(error)")
        }
    }

    @Test func aConfigurationBuiltInCodeIsCheckedAsAFileIs() throws {
        var configuration = Self.configuration(baseURL: "http://127.0.0.1:9")
        configuration.servers = [ServerEntry(name: "a", winPower: configuration.winPower),
                                 ServerEntry(name: "a", winPower: configuration.winPower)]
        configuration.scheduler.collectionInterval = .zero
        do {
            _ = try EmbeddedExporter(configuration: configuration, log: .disabled)
            Issue.record("an invalid configuration was accepted")
        } catch let error as ExporterError {
            guard case .invalidConfiguration(let problems) = error else { throw error }
            #expect(problems.compactMap(\.key) == ["scheduler.collection_interval", "servers[1].name"])
        }
    }

    @Test func aConfigurationFileLoadsFromTheFilesystem() throws {
        let path = "/tmp/consumer-config-\(UInt64.random(in: 0...UInt64.max)).yaml"
        let yaml = "winpower:\n  base_url: http://127.0.0.1:9\n  username: admin\n  password: admin\n"
            + "scheduler:\n  collection_interval: 7s\n"
        #expect(FileManager.default.createFile(atPath: path, contents: Data(yaml.utf8)))
        defer { try? FileManager.default.removeItem(atPath: path) }
        let loaded = try ConfigurationLoader.load(ConfigurationInputs(configPath: path, files: .system))
        #expect(loaded.configuration.scheduler.collectionInterval == .seconds(7))
        #expect(loaded.configuration.winPower.baseURL == "http://127.0.0.1:9")
        do {
            _ = try ConfigurationLoader.load(ConfigurationInputs(configPath: path + ".missing", files: .system))
            Issue.record("a missing configuration file was accepted")
        } catch {
            #expect("\(error)".contains(path + ".missing"), "\(error)")
        }
    }

    @Test func theExportersComponentsLogUnderTheGivenLabel() async throws {
        let simulator = SimulatorServer(simulator: WinPowerSimulator())
        let port = try await simulator.start().port
        let sink = RecordingSink()
        let embedded = try EmbeddedExporter(configuration: Self.configuration(baseURL: "http://127.0.0.1:\(port)"),
                                            log: WPLogger(label: "consumer", sink: sink))
        let running = Task { try await embedded.group.run() }
        defer { running.cancel() }
        let login = try await within(.seconds(60), "a login") { await sink.wait(for: "logged in") }
        #expect(login.logger == "consumer.client")
        await embedded.group.triggerGracefulShutdown()
        try await within(.seconds(60), "the group to return") { try await running.value }
        await simulator.stop()
    }

    @Test func theGroupsShutdownSavesTheTotals() async throws {
        let simulator = SimulatorServer(simulator: WinPowerSimulator())
        let port = try await simulator.start().port
        let sink = RecordingSink()
        let embedded = try EmbeddedExporter(configuration: Self.configuration(baseURL: "http://127.0.0.1:\(port)"),
                                            log: WPLogger(label: "consumer", sink: sink))
        let running = Task { try await embedded.group.run() }
        defer { running.cancel() }
        _ = try await within(.seconds(60), "a collection") { await sink.wait(for: "logged in") }
        await embedded.group.triggerGracefulShutdown()
        try await within(.seconds(60), "the group to return") { try await running.value }
        _ = try await within(.seconds(5), "the totals saved") { await sink.wait(for: "energy persisted") }
        await simulator.stop()
    }
}
#endif
