// A service that embeds the WinPower exporter (docs/embedding-exporter.md): the WinPower pipeline of two
// servers, simulated here by the simulator library, beside the service's own counters on one
// /metrics served by the service's WPServer; then a configuration reload. Linux only (WPServer).
#if os(Linux)
import FoundationEssentials
import WPConfig
import WPExporter
import WPExporterTesting
import WPLogging
import WPMetrics
import WPServer
import WPServerMetrics
import WPSimulator

enum EmbeddedWinPower {
    /// Runs the service: waits until both servers are in `/metrics`, reloads a configuration
    /// that labels server `b` with its room, waits for the label, then stops (persisting the
    /// energy totals). Returns the two `/metrics` bodies it scraped, before and after the reload.
    static func run(log: WPLogger) async throws -> [String] {
        let simulators = [SimulatorServer(simulator: WinPowerSimulator()), SimulatorServer(simulator: WinPowerSimulator())]
        var configuration = ExporterConfiguration()
        // The energy totals' directory (a throwaway one for the example).
        let dataDirectory = FileManager.default.temporaryDirectory.path + "/embedded-winpower-\(UUID().uuidString)"
        configuration.storage.dataDirectory = dataDirectory
        defer { try? FileManager.default.removeItem(atPath: dataDirectory) }
        for (name, simulator) in zip(["a", "b"], simulators) {
            var winPower = ExporterConfiguration.WinPower()
            winPower.baseURL = "http://127.0.0.1:\(try await simulator.start().port)"
            (winPower.username, winPower.password) = ("admin", Secret("admin"))   // the simulator's defaults
            configuration.servers.append(ServerEntry(name: name, winPower: winPower))
        }
        // Every collection (merged) wakes the waits below.
        let (published, publish) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        let exporter = try Exporter(configuration: configuration, options: .init(
            clock: ContinuousClock(), logger: log.child(label: "winpower"),
            afterCollection: { publish.yield() }))

        // The service's own metrics and the WinPower families in one registry, on one /metrics.
        let registry = MetricRegistry()
        let jobs = try registry.counter(name: "service_jobs_total", help: "Jobs the service ran.")
        try exporter.register(in: registry)
        var router = WPRouter(observer: try RequestMetrics(namespace: "service", registry: registry))
        router.addMetrics(registry: registry)
        let server = WPHTTPServer(configuration: .init(host: "127.0.0.1", port: 0), handler: router, logger: log)

        let (stop, stopNow) = AsyncStream.makeStream(of: Void.self)
        return try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await server.run() }
            group.addTask { try await exporter.runCollection(until: { for await _ in stop {} }) }
            let url = "http://127.0.0.1:\(try await server.waitUntilListening().port)/metrics"
            func scrape(until expected: String...) async throws -> String {
                for await _ in published {
                    let body = try await LoopbackClient().send(url: url).text
                    if expected.allSatisfy(body.contains) { return body }
                }
                throw CancellationError()
            }
            try jobs.increment(by: 2)
            // Both servers collected (each collection merged wakes the wait; they finish in any order).
            let first = try await scrape(until: "winpower_exporter_up{server=\"a\"} 1", "winpower_exporter_up{server=\"b\"} 1")
            var next = exporter.configuration
            next.servers[1].labels = [ServerEntry.Label(name: "room", value: "basement")]
            let applied = try await exporter.apply(next)
            log.info("configuration reloaded", ["changes": .string(applied.summary)])
            let second = try await scrape(until: "winpower_exporter_up{server=\"a\"} 1", "winpower_exporter_up{server=\"b\",room=\"basement\"} 1")
            stopNow.finish()
            try await group.next()   // the collection stopped and saved the energy totals
            group.cancelAll()
            for simulator in simulators { await simulator.stop() }
            return [first, second]
        }
    }
}
#endif
