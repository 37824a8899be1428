import Foundation
import Synchronization
import Testing
import WPTestThreads
import WPConfig
import WPLogging
import WPMetrics
import WPServer
import WPTestSupport
@testable import WPExporter
import WPWallClock

/// Reloading the configuration: outcomes, metrics, `/-/reload` and serialisation.
@Suite("Configuration reload", .ownThreads, .timeLimit(.minutes(3)))
struct ConfigReloaderTests {
    struct Broken: Error, CustomStringConvertible {
        var description: String { "./config.yaml:3:1: server.port: \"x\" must be an integer" }
    }

    static func loaded(_ port: Int = 9090) -> LoadedConfiguration {
        var configuration = ExporterConfiguration()
        configuration.server.port = port
        return LoadedConfiguration(configuration: configuration, configurationFile: "./config.yaml", settings: [:], warnings: [])
    }

    @Test func aFailedReloadKeepsTheLastSuccessAndReportsTheErrorUntilOneSucceeds() async throws {
        let fails = Atomic(false)
        let clock = Mutex(Date(timeIntervalSince1970: 1_000))
        let logs = InMemoryLogSink()
        let reloader = ConfigReloader(load: {
            if fails.load(ordering: .relaxed) { throw Broken() }
            return Self.loaded()
        }, apply: { _ in ConfigReloader.Applied(summary: "no change") },
        logger: WPLogger(label: "t", level: .debug, sink: logs), wallClock: WallClock { clock.withLock { $0 } })
        let registry = MetricRegistry()
        try reloader.register(in: registry)
        func gauges() -> [String: Double] {
            var text: [UInt8] = []
            ExpositionEncoder(format: .text).encode(registry.collect(), into: &text)
            return Exposition.samples(String(decoding: text, as: UTF8.self))
        }
        #expect(gauges()["winpower_exporter_config_last_reload_successful"] == 1)
        #expect(gauges()["winpower_exporter_config_last_reload_success_timestamp_seconds"] == 1_000)

        clock.withLock { $0 = Date(timeIntervalSince1970: 2_000) }
        #expect(await reloader.reload(trigger: "test") == .applied(ConfigReloader.Applied(summary: "no change")))
        #expect(gauges()["winpower_exporter_config_last_reload_success_timestamp_seconds"] == 2_000)

        fails.store(true, ordering: .relaxed)
        clock.withLock { $0 = Date(timeIntervalSince1970: 3_000) }
        #expect(await reloader.reload(trigger: "SIGHUP") == .rejected(Broken().description))
        #expect(gauges()["winpower_exporter_config_last_reload_successful"] == 0)
        #expect(gauges()["winpower_exporter_config_last_reload_success_timestamp_seconds"] == 2_000)
        #expect(reloader.status.lastError == Broken().description)
        #expect(logs.records.contains { $0.message.contains("reload failed") && $0.level == .error })

        fails.store(false, ordering: .relaxed)
        #expect(await reloader.reload(trigger: "SIGHUP") == .applied(ConfigReloader.Applied(summary: "no change")))
        #expect(reloader.status == ConfigReloader.Status(lastSuccessful: true, lastSuccess: Date(timeIntervalSince1970: 3_000),
                                                         lastError: nil, attempts: 3))
    }

    @Test func reloadsNeverOverlap() async {
        let active = Atomic(0)
        let overlapped = Atomic(false)
        let reloader = ConfigReloader(load: { Self.loaded() }, apply: { _ in
            if active.add(1, ordering: .sequentiallyConsistent).newValue > 1 { overlapped.store(true, ordering: .relaxed) }
            await Task.yield()
            active.subtract(1, ordering: .sequentiallyConsistent)
            return ConfigReloader.Applied(summary: "ok")
        }, logger: .disabled, wallClock: .system)
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<20 { group.addTask { _ = await reloader.reload(trigger: "test") } }
        }
        let didOverlap = overlapped.load(ordering: .relaxed)
        #expect(!didOverlap)
        #expect(reloader.status.attempts == 20)
    }

    @Test func sectionsThatNeedARestartAreNamed() {
        let running = ExporterConfiguration()
        var next = running
        #expect(ConfigReloader.sectionsNeedingRestart(running: running, next: next).isEmpty)
        next.server.port = 1
        next.storage.dataDirectory = "/elsewhere"
        next.logging.level = .debug
        next.scheduler.collectionInterval = .seconds(1)  // applied while running
        #expect(ConfigReloader.sectionsNeedingRestart(running: running, next: next) == ["server", "storage", "logging"])
        // The front ends' sections are applied by making their front end again.
        next.snmp.listen = ":1161"
        next.nut.listen = ":3493"
        next.push.url = "http://127.0.0.1:9/"
        #expect(ConfigReloader.sectionsNeedingRestart(running: running, next: next) == ["server", "storage", "logging"])
        let applied = ConfigReloader.applicable(running: running, next: next)
        #expect(applied.server == running.server && applied.storage == running.storage && applied.logging == running.logging)
        #expect(applied.snmp == next.snmp && applied.nut == next.nut && applied.push == next.push)
        #expect(applied.scheduler.collectionInterval == .seconds(1))
    }

    /// Without its own listener (`runCollection`), the listener's settings are used by nothing:
    /// changing them is no restart to announce; the router's (`metrics_path`) still is.
    @Test func withoutAListenerOnlyTheRoutersServerSettingsNeedARestart() {
        let running = ExporterConfiguration()
        var listener = running
        listener.server.port = 1
        listener.server.host = "127.0.0.1"
        listener.server.readTimeout = .seconds(3)
        #expect(ConfigReloader.sectionsNeedingRestart(running: running, next: listener, ownListener: false).isEmpty)
        #expect(ConfigReloader.sectionsNeedingRestart(running: running, next: listener, ownListener: true) == ["server"])
        var routed = running
        routed.server.metricsPath = "/winpower"
        #expect(ConfigReloader.sectionsNeedingRestart(running: running, next: routed, ownListener: false) == ["server"])
    }

    @Test func reloadEndpointIsForbiddenWithoutTheLifecycleFlagAndReportsFailuresWith500() async throws {
        let reloader = ConfigReloader(load: { throw Broken() }, apply: { _ in .init(summary: "x") },
                                      logger: .disabled, wallClock: .system)
        var endpoints = try EndpointTests.endpoints()
        endpoints.reloader = reloader
        let router = endpoints.makeRouter()
        func send(_ method: String) async throws -> WPHTTPResponse {
            try await router.handle(WPHTTPRequest(method: method, target: "/-/reload"))
        }
        let forbidden = try await send("POST")
        #expect(forbidden.status == 403)
        #expect(String(decoding: forbidden.body, as: UTF8.self).contains("--web.enable-lifecycle"))
        #expect(reloader.status.attempts == 0)
        endpoints.lifecycleEnabled = true
        let enabled = endpoints.makeRouter()
        let failed = try await enabled.handle(WPHTTPRequest(method: "POST", target: "/-/reload"))
        #expect(failed.status == 500)
        #expect(String(decoding: failed.body, as: UTF8.self).contains("server.port"))
        #expect(try await enabled.handle(WPHTTPRequest(method: "PUT", target: "/-/reload")).status == 500)
        #expect(try await enabled.handle(WPHTTPRequest(method: "GET", target: "/-/reload")).status == 405)
        let health = String(decoding: endpoints.healthResponse().body, as: UTF8.self)
        #expect(health.contains("\"config_reload\":{\"attempts\":2,\"last_error\":"))
        #expect(health.contains("\"last_successful\":false"))
    }
}
