import WPTime
import Foundation
import Synchronization
import Testing
import WPTestThreads
import WPCollector
import WPConfig
import WPEnergy
import WPFrontEnd
import WPLogging
import WPMetrics
import WPNUTFrontEnd
import WPRuntime
import WPServer
import WPStatusPage
import WPTestSupport
@testable import WPExporter

/// The front ends as a list: a reload that changes a front end's section makes it again
/// (the old one stopped, its metrics and subscriptions gone), refuses a section that cannot be
/// served, and an embedder's front end joins the list through `Options.frontEnds`.
@Suite(.ownThreads, .timeLimit(.minutes(4))) struct FrontEndListTests {
    /// The exporter's collections running until `body` returns.
    static func running(_ exporter: Exporter<ManualClock>, _ body: () async throws -> Void) async throws {
        let (trigger, stop) = AsyncStream<Void>.makeStream()
        let task = Task { try await exporter.runCollection(until: { for await _ in trigger {} }) }
        do {
            try await body()
        } catch {
            stop.finish()
            _ = try? await task.value
            throw error
        }
        stop.finish()
        try await task.value
    }

    static func occurrences(of text: String, in body: String) -> Int { body.components(separatedBy: text).count - 1 }

    /// `nut.*` changed: a new NUT server on the new settings, the old one's connections closed,
    /// its metrics served once; a users file that cannot be read refuses the reload and keeps
    /// the running server; `nut.listen` removed turns it off (no `/health` section, no metrics).
    @Test func aReloadThatChangesNUTMakesItsServerAgain() async throws {
        let directory = temporaryPathRemovedAtExit("wpexporter-front-end-reload")
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let broken = directory + "/users.yml"
        try "users: [unclosed\n".write(toFile: broken, atomically: true, encoding: .utf8)
        let harness = try await ExporterHarness(devices: 2, configureExporter: { configuration in
            configuration.nut.listen = "127.0.0.1:0"
        })
        let exporter = harness.exporter
        try await Self.running(exporter) {
            let first = try #require(exporter.nut)
            let old = try await TestHTTPClient.connect(port: try await first.server.waitUntilListening().port)
            defer { old.close() }
            try await old.send("VER\n")
            #expect(try await old.readLine().contains("wpexporter"))

            var next = exporter.configuration
            next.nut.maxConnections = 17
            let applied = try await exporter.apply(next)
            #expect(applied.needsRestart.isEmpty, "\(applied.needsRestart)")
            #expect(applied.summary.contains("restarted nut"), "\(applied.summary)")
            #expect(applied.warnings.isEmpty, "\(applied.warnings)")
            let second = try #require(exporter.nut)
            #expect(second !== first)
            #expect(exporter.configuration.nut.maxConnections == 17)
            #expect(await old.isClosedByServer(), "the old server's connections end with it")
            let client = try await TestHTTPClient.connect(port: try await second.server.waitUntilListening().port)
            defer { client.close() }
            try await client.send("LIST UPS\n")
            #expect(try await client.readLine() == "BEGIN LIST UPS")
            let metrics = try await harness.get("/metrics").text
            #expect(Self.occurrences(of: "# TYPE winpower_exporter_nut_commands_total counter", in: metrics) == 1, "\(metrics)")

            var unreadable = next
            unreadable.nut.usersFile = broken
            do {
                _ = try await exporter.apply(unreadable)
                Issue.record("a NUT users file that cannot be read was applied")
            } catch {
                guard let refusal = error as? ReloadRefusal, case .frontEnd(let section, let reason) = refusal else {
                    Issue.record("not the NUT section's refusal: \(error)")
                    return
                }
                #expect(section == "nut" && reason.contains(broken), "\(reason)")
                #expect("\(refusal)".hasPrefix("nut"), "\(refusal)")
            }
            #expect(exporter.nut === second, "a refused reload keeps the running server")
            #expect(exporter.configuration.nut.usersFile == nil)

            var off = next
            off.nut.listen = nil
            _ = try await exporter.apply(off)
            #expect(exporter.nut == nil)
            #expect(await client.isClosedByServer())
            let health = try await harness.get("/health").text
            #expect(!health.contains("\"nut\""), "\(health)")
            #expect(!(try await harness.get("/metrics").text).contains("winpower_exporter_nut_"))
        }
        await harness.shutdown()
    }

    /// A front end of the embedder's own, given in `Options.frontEnds`: made from its context
    /// once, handed every publication, its metrics on `/metrics` and its section in `/health`,
    /// run with the exporter and cancelled when it stops; a reload of another section leaves it.
    @Test func anEmbeddersFrontEndJoinsTheList() async throws {
        let probe = Probe()
        let factory = FrontEndFactory<ManualClock>(section: "probe") { context throws(FrontEndError) in
            probe.made.add(1, ordering: .relaxed)
            let gauge: WPGauge
            do throws(MetricsError) {
                gauge = try context.registry.gauge(name: "probe_generations_seen", help: "Publications the probe was handed.")
            } catch {
                throw .metrics(error)
            }
            context.publication.subscribe { state in
                probe.generations.withLock { $0.append(state.generation) }
                gauge.increment()
            }
            return probe
        }
        let harness = try await ExporterHarness(devices: 2, frontEnds: [factory])
        let exporter = harness.exporter
        try await Self.running(exporter) {
            #expect(exporter.frontEnds.map { $0.name } == ["the battery health meter", "the history writer", "the status pages", "the probe"])
            await ServersHarness.until("the probe runs") { probe.runs.load(ordering: .relaxed) == 1 }
            await ServersHarness.until("a publication") { !probe.generations.withLock { $0.isEmpty } }
            let metrics = try await harness.get("/metrics").text
            #expect(metrics.contains("# TYPE probe_generations_seen gauge"), "\(metrics)")
            let health = try await harness.get("/health").text
            #expect(health.contains("\"probe\":{\"made\":1}"), "\(health)")
            var next = exporter.configuration
            next.nut.listen = "127.0.0.1:0"
            _ = try await exporter.apply(next)
            #expect(exporter.frontEnds.map { $0.name } == ["the battery health meter", "the NUT server", "the history writer", "the status pages",
                                                           "the probe"])
        }
        #expect(probe.made.load(ordering: .relaxed) == 1, "made once: its section never changes")
        #expect(probe.cancelled.load(ordering: .relaxed) == 1, "cancelled when the exporter stopped")
        let seen = probe.generations.withLock { $0 }
        #expect(seen == seen.sorted() && Set(seen).count == seen.count, "handed in generation order, once each: \(seen)")
        await harness.shutdown()
    }

    /// An embedder's front end that cannot be made stops the start with its section's error,
    /// naming its key as it said it.
    @Test func anEmbeddersFrontEndThatCannotBeMadeIsNamedBySection() async throws {
        let factory = FrontEndFactory<ManualClock>(section: "probe") { _ throws(FrontEndError) in
            throw .configuration("probe.path: /nowhere is not a directory")
        }
        do {
            let harness = try await ExporterHarness(devices: 1, frontEnds: [factory])
            await harness.shutdown()
            Issue.record("an exporter was made with a front end that cannot be")
        } catch {
            guard case .frontEnd(let section, _)? = error as? ExporterError else {
                Issue.record("not the section's error: \(error)")
                return
            }
            #expect(section == "probe")
            #expect("\(error)" == "probe.path: /nowhere is not a directory")
        }
    }

    /// A front end made after others sees them while it is made (the list's one state, read
    /// through ``FrontEndContext/frontEnds``), and sees a replacement at once: the status pages
    /// read the cost counters made before them, the embedder's front end both.
    @Test func aFrontEndSeesTheFrontEndsMadeBeforeIt() async throws {
        let seenWhileMade = Mutex<[String]>([])
        let readLater = Mutex<(@Sendable () -> [any FrontEnd])?>(nil)
        let factory = FrontEndFactory<ManualClock>(section: "probe") { context throws(FrontEndError) in
            seenWhileMade.withLock { $0 = context.frontEnds().map(\.name) }
            readLater.withLock { $0 = context.frontEnds }
            return Probe()
        }
        let harness = try await ExporterHarness(devices: 1, configureExporter: { configuration in
            configuration.energy.tariffs.currency = "CNY"
            configuration.energy.tariffs.flatPrice = 0.5
            configuration.energy.tariffs.timeZone = "UTC+08:00"
        }, frontEnds: [factory])
        let names = seenWhileMade.withLock { $0 }
        #expect(names.contains("the energy cost counters"), "\(names)")
        #expect(names.contains(harness.exporter.statusPage.name), "\(names)")
        #expect(!names.contains("the probe"), "not itself: it is being made")
        await harness.exporter.collector.collect()
        #expect(harness.exporter.statusPage.model.currency == "CNY")
        #expect(harness.exporter.statusPage.model.timeZone.offset(at: 0) == 28_800)

        let first = try #require(harness.exporter.energyCost)
        var euros = harness.exporter.configuration
        euros.energy.tariffs.currency = "EUR"
        _ = try await harness.exporter.apply(euros)
        let later = try #require(readLater.withLock { $0 })
        let counters = later().compactMap { $0 as? EnergyCostCounters }
        #expect(counters.count == 1 && counters.first?.meter !== first, "the successor, seen at once")
        #expect(counters.first?.meter.schedule.currency == "EUR")
        await harness.shutdown()
    }
}

/// A front end that records what happens to it.
private final class Probe: FrontEnd {
    let made = Atomic(0)
    let runs = Atomic(0)
    let cancelled = Atomic(0)
    let generations = Mutex<[UInt64]>([])
    let name = "the probe"

    var health: FrontEndHealth? { FrontEndHealth(key: "probe", value: ["made": made.load(ordering: .relaxed)]) }

    func run() async throws {
        runs.add(1, ordering: .relaxed)
        let (forever, _) = AsyncStream<Void>.makeStream()
        for await _ in forever {}
        cancelled.add(1, ordering: .relaxed)
    }
}
