import Foundation
import Synchronization
import Testing
import WPTestThreads
import WPClient
import WPCollector
import WPConfig
import WPEnergy
import WPLogging
import WPRuntime
import WPTestSupport
@testable import WPExporter
import WPWallClock

/// A reload adds, removes and changes servers without touching the unchanged ones, and loses
/// no energy total.
@Suite(.ownThreads, .timeLimit(.minutes(3))) struct ServersReloadTests {
    static func stub(_ watts: Double) -> ClientStub {
        ClientStub([.success(.make(devices: [.make(id: "ups-1", watts: watts)]))])
    }

    /// The configuration a reload loads, set by the test.
    final class NextConfiguration: Sendable {
        let value = Mutex<ExporterConfiguration?>(nil)
    }

    /// Reloads `harness` with `configuration`; what was applied, or `nil` (an issue recorded).
    static func applied(_ harness: ServersHarness, _ next: NextConfiguration,
                        _ configuration: ExporterConfiguration) async -> ConfigReloader.Applied? {
        next.value.withLock { $0 = configuration }
        guard case .applied(let applied) = await harness.exporter.reloader.reload(trigger: "test") else {
            Issue.record("the reload failed")
            return nil
        }
        return applied
    }

    /// Reloads `harness` with its server at `index` renamed to `name` (`energy_from` the old name).
    static func rename(_ harness: ServersHarness, _ next: NextConfiguration, server index: Int,
                       to name: String) async -> ConfigReloader.Applied? {
        var configuration = harness.exporter.configuration
        configuration.servers[index].energyFrom = configuration.servers[index].name
        configuration.servers[index].name = name
        return await applied(harness, next, configuration)
    }

    @Test func aReloadThatChangesNothingSaysSoForEveryServer() async throws {
        let next = NextConfiguration()
        let harness = try ServersHarness(
            servers: [("a", Self.stub(100)), ("b", Self.stub(200)), ("c", Self.stub(300))],
            reload: { LoadedConfiguration(configuration: try #require(next.value.withLock { $0 })) },
            clientFactory: { _ in Self.stub(400) })
        let applied = await Self.applied(harness, next, harness.exporter.configuration)
        #expect(applied?.summary == "servers: 3 unchanged")
        #expect(harness.exporter.pipelines.map(\.name) == ["a", "b", "c"])
    }

    @Test func aReloadAddsRemovesAndChangesServersKeepingTheOthersAndEveryTotal() async throws {
        let next = NextConfiguration()
        let made = Mutex<[String]>([])
        let harness = try ServersHarness(
            servers: [("a", Self.stub(100)), ("b", Self.stub(200)), ("c", Self.stub(300))],
            reload: { LoadedConfiguration(configuration: try #require(next.value.withLock { $0 })) },
            clientFactory: { entry in
                made.withLock { $0.append(entry.name) }
                return Self.stub(400)
            })
        let exporter = harness.exporter
        for _ in 0..<2 {
            for pipeline in exporter.pipelines { await pipeline.collector.collect() }
            harness.clock.advance(by: .seconds(5))
        }
        let before = exporter.meter.totals
        let keyB = EnergyKey.qualified(server: "b", device: "ups-1")
        let keyC = EnergyKey.qualified(server: "c", device: "ups-1")
        #expect(before[keyB]?.joules == 1000)
        let kept = exporter.pipelines[0]

        var configuration = exporter.configuration
        configuration.servers[2].winPower.baseURL = "http://127.0.0.9:8081"   // c changes
        var added = configuration.servers[0]
        added.name = "d"
        configuration.servers = [configuration.servers[0], configuration.servers[2], added]  // b removed
        next.value.withLock { $0 = configuration }
        let outcome = await exporter.reloader.reload(trigger: "test")
        let removedB = "servers[b] removed: its 1 energy totals stay stored but are no longer exported; "
            + "a new entry with energy_from: b continues them"
        #expect(outcome == .applied(ConfigReloader.Applied(summary: "servers: added d; changed c; removed b; 1 unchanged",
                                                           warnings: [removedB])))
        #expect(exporter.reloader.status.lastWarnings == [removedB])
        #expect(exporter.pipelines.map(\.name) == ["a", "c", "d"])
        #expect(exporter.pipelines[0] === kept, "the unchanged server keeps its pipeline and schedule")
        #expect(made.withLock { $0 } == ["c", "d"], "clients made only for the changed and the new server")

        for pipeline in exporter.pipelines { await pipeline.collector.collect() }
        exporter.merger.publish()
        let samples = try await harness.scrape()
        #expect(!samples.keys.contains { $0.contains("server=\"b\"") }, "a removed server leaves /metrics")
        #expect(samples["winpower_exporter_up{server=\"d\",site=\"site-0\"}"] == 1)
        #expect(samples["winpower_exporter_up{server=\"a\",site=\"site-0\"}"] == 1)
        let after = exporter.meter.totals
        #expect(after[keyB] == before[keyB], "the removed server's totals stay")
        #expect((after[keyC]?.joules ?? 0) > (before[keyC]?.joules ?? .infinity), "the changed server's totals continue")
        let targets = try await harness.get("/targets")
        #expect(targets.text.contains("\"d\"") && !targets.text.contains("\"b\""))
        #expect(try await harness.get("/probe?target=b").status == 400)
        #expect(try await harness.get("/probe?target=d").status == 200)
        #expect(exporter.reloader.status.lastSuccessful)
    }

    @Test func aServerThatCannotBeSetUpRejectsTheWholeReload() async throws {
        let next = NextConfiguration()
        struct BadCA: Error, CustomStringConvertible { var description: String { "servers[d]: ca_file unreadable" } }
        let harness = try ServersHarness(
            servers: [("a", Self.stub(100)), ("b", Self.stub(200))],
            reload: { LoadedConfiguration(configuration: try #require(next.value.withLock { $0 })) },
            clientFactory: { _ in throw BadCA() })
        var configuration = harness.exporter.configuration
        var added = configuration.servers[0]
        added.name = "d"
        configuration.servers = [configuration.servers[0], added]
        next.value.withLock { $0 = configuration }
        let outcome = await harness.exporter.reloader.reload(trigger: "test")
        #expect(outcome == .rejected(BadCA().description))
        #expect(harness.exporter.pipelines.map(\.name) == ["a", "b"], "nothing changed")
    }

    @Test func aRenameAndSwitchingBetweenServersAndOneServerApplyLive() async throws {
        let next = NextConfiguration()
        let harness = try ServersHarness(
            servers: [("a", Self.stub(100)), ("b", Self.stub(200))],
            reload: { LoadedConfiguration(configuration: try #require(next.value.withLock { $0 })) },
            clientFactory: { _ in Self.stub(1) })
        guard let applied = await Self.rename(harness, next, server: 1, to: "b2") else { return }
        #expect(applied.needsRestart.isEmpty)
        #expect(harness.exporter.pipelines.map(\.name) == ["a", "b2"])

        var configuration = harness.exporter.configuration
        configuration.servers = []
        guard let single = await Self.applied(harness, next, configuration) else { return }
        #expect(single.needsRestart.isEmpty)
        #expect(single.summary == "servers: added winpower; removed a, b2; 0 unchanged")
        #expect(harness.exporter.pipelines.map(\.name) == [""])
        #expect(harness.exporter.endpoints.servers.isEmpty, "/probe and /targets are gone with the servers")

        configuration.servers = [ServerEntry(name: "c", winPower: configuration.winPower)]
        guard let back = await Self.applied(harness, next, configuration) else { return }
        #expect(back.needsRestart.isEmpty)
        #expect(harness.exporter.pipelines.map(\.name) == ["c"])
        #expect(harness.exporter.endpoints.servers.map(\.name) == ["c"])
    }

    /// A rename whose target already holds totals moves nothing for those devices: the answer
    /// and `/health` say so, not only the log.
    @Test func aMoveThatCannotHappenIsAWarningInTheAnswerAndHealth() async throws {
        let next = NextConfiguration()
        let harness = try ServersHarness(
            servers: [("a", Self.stub(100)), ("b", Self.stub(200)), ("c", Self.stub(300))],
            reload: { LoadedConfiguration(configuration: try #require(next.value.withLock { $0 })) },
            clientFactory: { _ in Self.stub(1) })
        for pipeline in harness.exporter.pipelines { await pipeline.collector.collect() }
        var configuration = harness.exporter.configuration
        let removed = configuration.servers.removeLast()  // c leaves; its totals stay stored
        guard await Self.applied(harness, next, configuration) != nil else { return }
        configuration.servers[1].energyFrom = "b"         // b comes back as c: c's totals are in the way
        configuration.servers[1].name = removed.name
        guard let applied = await Self.applied(harness, next, configuration) else { return }
        let expected = "servers[c].energy_from: 1 energy totals of \"b\" not moved: c already holds totals for the "
            + "same devices; both are kept, those of \"b\" stored but not exported"
        #expect(applied.warnings == [expected])
        let health = try await harness.get("/health").text
        #expect(health.contains("\"last_warnings\""))
        #expect(health.contains("already holds totals for the same devices"))
    }

    /// A reload that changes a server's URL while its collection is in flight: the new pipeline
    /// starts only once the old collection has finished and recorded, so the server is never
    /// collected twice at once, and its energy is the exact integral of its constant power.
    @Test func aChangedServerIsNeverCollectedTwiceAtOnceAndItsEnergyIsExact() async throws {
        let next = NextConfiguration()
        let probe = ConcurrencyProbe()
        let old = GatedClient(probe: probe, blockingCall: 2)
        let replacement = GatedClient(probe: probe, blockingCall: nil)
        let harness = try ServersHarness(
            servers: [("a", Self.stub(100)), ("c", old)],
            reload: { LoadedConfiguration(configuration: try #require(next.value.withLock { $0 })) },
            clientFactory: { _ in replacement })
        let exporter = harness.exporter
        let fleet = exporter.fleet
        let key = EnergyKey.qualified(server: "c", device: "ups-1")
        let running = Task { await fleet.run() }

        // Published (after its save) and c's scheduler asleep again, with a's: an advance before
        // that would be a missed tick.
        await harness.until("the first collection of c, published") {
            exporter.meter.totals[key] != nil && old.calls == 1 && harness.clock.sleeperCount >= 2
                && fleet.pipelines.first { $0.name == "c" }?.collector.health.lastSuccess != nil
        }
        harness.clock.advance(by: .seconds(10))
        await harness.until("the second collection of c, in flight") { probe.inFlight == 1 && old.calls == 2 }

        var configuration = exporter.configuration
        configuration.servers[1].winPower.baseURL = "http://127.0.0.9:8081"
        next.value.withLock { $0 = configuration }
        let reload = Task { await exporter.reloader.reload(trigger: "test") }
        // The reload has swapped the members: the old pipeline retires, its collection still in
        // flight (held by the gate; the manual clock never reaches the graceful timeout), and the
        // new one is deferred until it ends, so it cannot have collected, however the tasks run.
        await harness.until("the old pipeline retiring") { fleet.retiringCount == 1 }
        #expect(fleet.isDeferred("c"), "the new pipeline waits for the old collection")
        #expect(replacement.calls == 0)
        old.release()
        let outcome = await reload.value
        #expect(outcome == .applied(ConfigReloader.Applied(summary: "servers: changed c; 1 unchanged")))
        await harness.until("the new pipeline's first collection") { replacement.calls == 1 && probe.inFlight == 0 }
        // The next tick of the new pipeline: an advance made before its scheduler went to sleep
        // is a missed tick (skipped, not run late), so advance again until it collects, each
        // time waiting until every scheduler woken by the advance has collected or slept again
        // (the clock's sleepers are back); the reading's time then gives the exact integral,
        // 400 W from 0 s to that time.
        while replacement.calls < 2 && harness.clock.now.offset < .seconds(100) {
            let sleepers = harness.clock.sleeperCount
            harness.clock.advance(by: .seconds(10))
            await harness.until("the tick handled") { replacement.calls >= 2 || harness.clock.sleeperCount >= sleepers }
        }
        await harness.until("the new pipeline's second collection") { replacement.calls >= 2 && probe.inFlight == 0 }
        let expected = 400.0 * Double(harness.clock.now.offset.components.seconds)
        await harness.until("the second collection recorded (\(expected) J)") { exporter.meter.totals[key]?.joules == expected }

        #expect(probe.maximum == 1, "two collections of c ran at once")
        #expect(exporter.meter.totals[key]?.joules == expected)
        running.cancel()
        await running.value
    }
}

/// Counts the collections of one server in flight, across its old and new clients.
final class ConcurrencyProbe: Sendable {
    private let state = Mutex<(now: Int, maximum: Int)>((0, 0))
    var inFlight: Int { state.withLock { $0.now } }
    var maximum: Int { state.withLock { $0.maximum } }
    func enter() { state.withLock { $0.now += 1; $0.maximum = max($0.maximum, $0.now) } }
    func leave() { state.withLock { $0.now -= 1 } }
}

/// A WinPower client reading 400 W from one UPS; call number `blockingCall` (1-based) holds
/// its answer until ``release()``.
final class GatedClient: WinPowerClient {
    private struct State {
        var calls = 0
        var released = false
        var waiting: CheckedContinuation<Void, Never>?
    }
    private let state = Mutex(State())
    private let probe: ConcurrencyProbe
    private let blockingCall: Int?

    init(probe: ConcurrencyProbe, blockingCall: Int?) {
        self.probe = probe
        self.blockingCall = blockingCall
    }

    var calls: Int { state.withLock { $0.calls } }

    func release() {
        let waiting = state.withLock { state -> CheckedContinuation<Void, Never>? in
            state.released = true
            defer { state.waiting = nil }
            return state.waiting
        }
        waiting?.resume()
    }

    func fetchDevices() async throws -> DeviceReadout {
        probe.enter()
        defer { probe.leave() }
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let now = state.withLock { state -> Bool in
                state.calls += 1
                guard state.calls == blockingCall, !state.released else { return true }
                state.waiting = continuation
                return false
            }
            if now { continuation.resume() }
        }
        return .make(devices: [.make(id: "ups-1", watts: 400)])
    }
}

/// A WinPower client that records the credentials a reload hands it.
final class CredentialRecorder: WinPowerClient, CredentialUpdating {
    private let received = Mutex<[String]>([])
    var credentials: [String] { received.withLock { $0 } }
    func fetchDevices() async throws -> DeviceReadout { .make() }
    func updateCredentials(username: String, password: String) async {
        received.withLock { $0.append("\(username):\(password)") }
    }
}

/// Without `servers`, a reload hands rotated credentials to the running client; other
/// `winpower` changes still need a restart.
@Suite(.ownThreads, .timeLimit(.minutes(3))) struct SingleServerReloadTests {
    @Test func aRotatedPasswordReachesTheRunningClient() async throws {
        let next = ServersReloadTests.NextConfiguration()
        let client = CredentialRecorder()
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("wpexporter-single-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let configuration = ExporterHarness.configuration(baseURL: "http://127.0.0.1:1", username: "admin",
                                                          password: "old-Pa55", dataDirectory: directory)
        let exporter = try Exporter(configuration: configuration, clients: [client], clock: ManualClock(),
                                    wallClock: .system, logger: .disabled,
                                    reload: { LoadedConfiguration(configuration: try #require(next.value.withLock { $0 })) },
                                    clientFactory: { _ in CredentialRecorder() })
        var rotated = configuration
        rotated.winPower.password = Secret("new-Pa55")
        next.value.withLock { $0 = rotated }
        #expect(await exporter.reloader.reload(trigger: "test")
                == .applied(ConfigReloader.Applied(summary: "single server: credentials changed, the next login uses them")))
        #expect(client.credentials == ["admin:new-Pa55"])

        var moved = rotated
        moved.winPower.baseURL = "http://127.0.0.2:1"
        next.value.withLock { $0 = moved }
        #expect(await exporter.reloader.reload(trigger: "test")
                == .applied(ConfigReloader.Applied(summary: "single server: changed, its collection restarted with the new settings")))
        #expect(client.credentials == ["admin:new-Pa55"], "nothing else reaches the old client")
        #expect(exporter.collector.configuration.target == "http://127.0.0.2:1")
        #expect(exporter.configuration.winPower.baseURL == "http://127.0.0.2:1", "the configuration in effect is the new one")

        #expect(await exporter.reloader.reload(trigger: "test") == .applied(ConfigReloader.Applied(summary: "single server: no change")))
        await exporter.close()
    }
}
