import Foundation
import Synchronization
import Testing
import WPTestThreads
import WPConfig
import WPExporter
import WPLogging
import WPMetrics
import WPServer
import WPSimulator
import WPTestSupport

/// The exporter library end to end, through its public API only (a plain `import WPExporter`,
/// as a service embedding it has): two simulated WinPower servers on real sockets, the real
/// clock and HTTP clients, `/metrics` served and scraped over HTTP, the WinPower families in a
/// service's own registry, reloads (a server added, then a switch to a `winpower`-only
/// configuration), and a stop that persists the energy totals and releases the data directory.
@Suite(.ownThreads, .timeLimit(.minutes(4))) struct LibraryEndToEndTests {
    private static func simulator() async throws -> SimulatorServer {
        var configuration = WinPowerSimulator.Configuration()
        configuration.deviceCount = 2
        configuration.username = "admin"
        configuration.password = "s3cr3t-Pa55"
        let server = SimulatorServer(simulator: WinPowerSimulator(configuration: configuration))
        _ = try await server.start()
        return server
    }

    private static func entry(_ name: String, _ simulator: SimulatorServer) throws -> ServerEntry {
        var winPower = ExporterConfiguration.WinPower()
        winPower.baseURL = "http://127.0.0.1:\(try #require(simulator.address).port)"
        winPower.username = "admin"
        winPower.password = Secret("s3cr3t-Pa55")
        return ServerEntry(name: name, winPower: winPower)
    }

    private static func get(_ path: String, port: Int) async throws -> TestHTTPClient.Response {
        let connection = try await TestHTTPClient.connect(port: port, sending: "GET \(path) HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n")
        defer { connection.close() }
        return try await connection.readResponse()
    }

    /// Scrapes `/metrics` until `condition` holds for its text (collections run on the real
    /// clock, a few milliseconds each); records an issue after a minute.
    private static func scrape(port: Int, until what: String, _ condition: (String) -> Bool) async throws -> String {
        let deadline = ContinuousClock.now.advanced(by: .seconds(120))
        while true {
            let response = try await get("/metrics", port: port)
            #expect(response.status == 200)
            if condition(response.text) { return response.text }
            if ContinuousClock.now > deadline {
                Issue.record("still waiting for \(what)")
                return response.text
            }
            try? await Task.sleep(for: .milliseconds(2))
        }
    }

    @Test func startCollectScrapeEmbedReloadAndStop() async throws {
        let (a, b) = (try await Self.simulator(), try await Self.simulator())
        defer { Task { await a.stop(); await b.stop() } }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("wpexporter-lib-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        var configuration = ExporterConfiguration()
        configuration.server.host = "127.0.0.1"
        configuration.server.port = 0
        configuration.storage.dataDirectory = directory
        configuration.winPower = try Self.entry("", a).winPower
        configuration.servers = [try Self.entry("a", a), try Self.entry("b", b)]
        let logs = InMemoryLogSink()
        let logger = WPLogger(label: "service", level: .debug, sink: logs, redactor: Redactor(secrets: ["s3cr3t-Pa55"]))
        let exporter = try Exporter(configuration: configuration,
                                    options: .init(clock: ContinuousClock(), logger: logger,
                                                   makeClient: Exporter<ContinuousClock>.httpClients(logger: logger)))

        // The service's own registry, with the WinPower families beside its counter.
        let registry = MetricRegistry()
        let jobs = try registry.counter(name: "service_jobs_total", help: "Jobs done.")
        try jobs.increment(by: 3)
        let families = try exporter.register(in: registry)
        #expect(throws: MetricsError.self) { try registry.gauge(name: "winpower_exporter_up", help: "Clash.") }

        let (stop, stopping) = AsyncStream<Void>.makeStream()
        let port = Mutex<Int?>(nil)
        let (listening, announce) = AsyncStream<Int>.makeStream()
        let running = Task {
            try await exporter.run(onListening: { address in announce.yield(address.port) }, until: { for await _ in stop {} })
        }
        for await bound in listening {
            port.withLock { $0 = bound }
            break
        }
        let exporterPort = try #require(port.withLock { $0 })

        let both = try await Self.scrape(port: exporterPort, until: "both servers collected") {
            $0.contains("winpower_exporter_up{server=\"a\"} 1") && $0.contains("winpower_exporter_up{server=\"b\"} 1")
        }
        #expect(both.contains("winpower_exporter_requests_total"), "the per-scrape families follow the snapshot")
        let embedded = String(decoding: registry.render(format: .openMetrics), as: UTF8.self)
        #expect(embedded.contains("service_jobs_total 3"))
        #expect(embedded.contains("winpower_exporter_up{server=\"a\"} 1"))
        // The reload status docs/embedding.md tells embedders to alert on is there too, once.
        #expect(embedded.components(separatedBy: "# TYPE winpower_exporter_config_last_reload_successful gauge").count == 2)
        #expect(embedded.contains("winpower_exporter_build_info{"))
        #expect(!embedded.contains("# TYPE process_cpu_seconds_total"), "process_* is the service's own")
        let types = embedded.split(separator: "\n").filter { $0.hasPrefix("# TYPE ") }
        #expect(Set(types).count == types.count, "every family once")
        #expect(embedded.hasSuffix("# EOF\n") && embedded.ranges(of: "# EOF").count == 1)

        // A reload adds a server; the other two keep running.
        var added = configuration
        added.servers.append(try Self.entry("c", b))
        let applied = try await exporter.apply(added)
        #expect(applied.summary == "servers: added c; 2 unchanged")
        #expect(exporter.configuration.servers.map(\.name) == ["a", "b", "c"])
        _ = try await Self.scrape(port: exporterPort, until: "server c collected") {
            $0.contains("winpower_exporter_up{server=\"c\"} 1")
        }

        // A reload to a winpower-only configuration: one server without a server label.
        var single = added
        single.servers = []
        let switched = try await exporter.apply(single)
        #expect(switched.needsRestart.isEmpty)
        let alone = try await Self.scrape(port: exporterPort, until: "the single server collected") {
            $0.contains("winpower_exporter_up 1")
        }
        #expect(!alone.contains("server=\""))
        #expect((try await Self.get("/probe?target=a", port: exporterPort)).status == 404)

        // A refused reload changes nothing and says why.
        var bad = single
        bad.servers = [try Self.entry("d", a)]
        bad.servers[0].energyFrom = "nowhere"
        await #expect(throws: ReloadRefusal.self) { _ = try await exporter.apply(bad) }
        #expect(exporter.configuration.servers.isEmpty)
        // Applied like reloads, one at a time, and reported with them.
        let health = try await Self.get("/health", port: exporterPort).text
        #expect(health.contains("\"attempts\":3"))
        #expect(health.contains("\"last_successful\":false"))
        #expect(health.contains("nowhere"), "the refusal names the energy_from at fault")
        // A configuration breaking a file's rules is refused with every problem, named by key.
        var invalid = single
        invalid.scheduler.collectionInterval = .zero
        invalid.servers = [try Self.entry("e", a), try Self.entry("e", b)]
        do {
            _ = try await exporter.apply(invalid)
            Issue.record("an invalid configuration was applied")
        } catch {
            if case .invalid(let problems) = error {
                #expect(problems.compactMap(\.key) == ["scheduler.collection_interval", "servers[1].name"])
            } else {
                Issue.record("refused as \(error)")
            }
        }
        #expect(exporter.configuration.servers.isEmpty)
        let refused = try await Self.get("/health", port: exporterPort).text
        #expect(refused.contains("\"attempts\":4"), "counted as a reload")
        #expect(refused.contains("servers[1].name"), "the refusal names the key at fault")

        stopping.finish()
        try await running.value
        #expect(registry.unregister(encoded: families))
        #expect(logs.allText.contains("energy persisted"), "the totals were saved on the way out")
        // The data directory's lock is released: another exporter opens it.
        let next = try Exporter(configuration: single, options: .init(clock: ContinuousClock(), logger: .disabled,
                                                                     makeClient: Exporter<ContinuousClock>.httpClients(logger: .disabled)))
        await next.close()
        #expect(!logs.allText.contains("s3cr3t-Pa55"))
    }
}

/// `Exporter.init` checks a configuration built in code as a file is checked.
@Suite(.ownThreads, .timeLimit(.minutes(3))) struct ExporterValidationTests {
    /// An exporter that serves no listener of its own (an embedder mounting its router) is not
    /// told that a changed port needs a restart: nothing uses the port.
    @Test func applyingANewPortWithoutAListenerAnnouncesNoRestart() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("wpexporter-port-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let configuration = ExporterHarness.configuration(baseURL: "http://127.0.0.1:9", username: "admin", password: "pw",
                                                          dataDirectory: directory)
        // The common embedding path: no clock to spell.
        let exporter = try Exporter(configuration: configuration, logger: .disabled)
        var next = configuration
        next.server.port = 19_090
        let applied = try await exporter.apply(next)
        #expect(applied.needsRestart.isEmpty)
        next.server.metricsPath = "/winpower"
        #expect(try await exporter.apply(next).needsRestart == ["server"], "the router's path is fixed when it is made")
        await exporter.close()
    }

    /// The exporter makes every password it is given a secret of its log, at init and after
    /// each applied change, with no code of the embedder's.
    @Test func thePasswordsInEffectAreSecretsOfTheExportersLog() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("wpexporter-secrets-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        var configuration = ExporterHarness.configuration(baseURL: "http://127.0.0.1:9", username: "admin", password: "first-Pa55word",
                                                          dataDirectory: directory)
        let winPower = configuration.winPower
        configuration.servers = [ServerEntry(name: "east", winPower: winPower)]
        let redactor = Redactor()
        let logger = WPLogger(label: "service", level: .info, sink: InMemoryLogSink(), redactor: redactor)
        let exporter = try Exporter(configuration: configuration, options: .init(clock: ContinuousClock(), logger: logger,
                                                                                 makeClient: Exporter<ContinuousClock>.httpClients(logger: logger)))
        #expect(!redactor.redact("login with first-Pa55word").contains("first-Pa55word"))
        var next = configuration
        next.servers[0].winPower.password = Secret("rotated-Pa55word")
        _ = try await exporter.apply(next)
        #expect(!redactor.redact("login with rotated-Pa55word").contains("rotated-Pa55word"), "the rotated password too")
        await exporter.close()
    }

    /// A sink that delivers records only when flushed, as one writing from a background thread
    /// delivers them only later.
    final class DeferredSink: LogSink {
        private let state = Mutex<(pending: [String], delivered: [String])>(([], []))
        func write(_ record: LogRecord) { state.withLock { $0.pending.append(record.message) } }
        func flush(timeout: Duration) -> Bool {
            state.withLock { state in
                state.delivered += state.pending
                state.pending = []
            }
            return true
        }
        var delivered: [String] { state.withLock { $0.delivered } }
    }

    /// The exporter's last lines have left the process by the time it has stopped: a service
    /// exiting right after needs no flush of its own.
    @Test func theLastLinesAreDeliveredWhenTheExporterHasStopped() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("wpexporter-flush-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let configuration = ExporterHarness.configuration(baseURL: "http://127.0.0.1:9", username: "admin", password: "pw",
                                                          dataDirectory: directory)
        let sink = DeferredSink()
        let exporter = try Exporter(configuration: configuration, logger: WPLogger(label: "service", sink: sink))
        await exporter.close()
        #expect(sink.delivered.contains("energy persisted"))
        #expect(sink.delivered.contains("energy totals kept in the data directory"), "where the totals are is said")
        #expect(Exporter<ContinuousClock>.absolute("./data") == FileManager.default.currentDirectoryPath + "/data")
        #expect(Exporter<ContinuousClock>.absolute("/var/lib/x") == "/var/lib/x")
    }

    @Test func anInvalidConfigurationIsRefusedWithEveryProblemBeforeAnythingOpens() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("wpexporter-invalid-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        var configuration = ExporterHarness.configuration(baseURL: "http://127.0.0.1:9", username: "admin", password: "do-not-show",
                                                          dataDirectory: directory)
        let winPower = configuration.winPower
        configuration.servers = [ServerEntry(name: "a", winPower: winPower), ServerEntry(name: "a", winPower: winPower)]
        configuration.scheduler.gracefulShutdownTimeout = .seconds(-1)
        configuration.nut.listen = "127.0.0.1"
        do {
            _ = try Exporter(configuration: configuration, options: .init(clock: ContinuousClock(), logger: .disabled,
                                                                          makeClient: Exporter<ContinuousClock>.httpClients(logger: .disabled)))
            Issue.record("an invalid configuration was accepted")
        } catch {
            guard case .invalidConfiguration(let problems) = error else { throw error }
            #expect(problems.compactMap(\.key) == ["servers[1].name", "scheduler.graceful_shutdown_timeout", "nut.listen"])
            let text = "\(error)"
            #expect(text.hasPrefix("the configuration is not valid (3 problems):\n  servers[1].name: "), "\(text)")
            #expect(!text.contains("do-not-show"))
        }
        #expect(!FileManager.default.fileExists(atPath: directory), "nothing was opened: no data directory made")
    }
}
