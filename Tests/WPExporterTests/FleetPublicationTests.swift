import Foundation
import Synchronization
import Testing
import WPTestThreads
import WPClient
import WPCollector
import WPConfig
import WPFrontEnd
import WPTestSupport
import WPRuntime
@testable import WPExporter

/// One published state: the HTTP endpoints serve the fleet's latest publication, the same value
/// every subscribed front end was handed, whatever the configuration's shape.
@Suite(.ownThreads, .timeLimit(.minutes(3))) struct FleetPublicationTests {
    @Test func namedServersServeTheMergeTheSubscribersWereHanded() async throws {
        let harness = try ServersHarness(servers: [
            ("a", ClientStub([.success(.make(devices: [.make(id: "ups-1", watts: 100)]))])),
            ("b", ClientStub([.success(.make(devices: [.make(id: "ups-9", watts: 50)]))])),
        ])
        let handed = Mutex<[FleetState<ManualClock>]>([])
        harness.exporter.publication.subscribe { state in handed.withLock { $0.append(state) } }
        for pipeline in harness.exporter.pipelines { await pipeline.collector.collect() }
        let last = try #require(handed.withLock { $0.last })
        #expect(last.servers.map(\.name) == ["a", "b"])
        #expect(last.servers.map { $0.devices.readings.map(\.device.id) } == [["ups-1"], ["ups-9"]])
        #expect(last.exposition.parts != nil, "a merge lists its bodies' parts")
        #expect(harness.exporter.snapshot === last.exposition.snapshot, "/metrics serves the state handed out")
        let metrics = try await harness.get("/metrics").text
        #expect(metrics.contains("winpower_device_load_total_watts{server=\"a\",site=\"site-0\",device_id=\"ups-1\""), "\(metrics.prefix(600))")
        #expect(metrics.contains("server=\"b\""))
        await harness.exporter.close()
    }

    /// A front end's view of the publication: its subscribers are handed what the others are
    /// until the view ends, then nothing; the exporter's own subscribers go on.
    @Test func aScopedViewsSubscribersEndWithIt() async throws {
        let harness = try await ExporterHarness(devices: 1)
        let publication = harness.exporter.publication
        let own = Mutex<[UInt64]>([])
        let scopedSeen = Mutex<[UInt64]>([])
        publication.subscribe { state in own.withLock { $0.append(state.generation) } }
        let scoped = publication.scoped()
        scoped.subscribe { state in scopedSeen.withLock { $0.append(state.generation) } }
        #expect(scoped.current.generation == publication.current.generation)
        await harness.exporter.collector.collect()
        scoped.end()
        await harness.exporter.collector.collect()
        scoped.subscribe { state in scopedSeen.withLock { $0.append(state.generation) } }
        await harness.exporter.collector.collect()
        let generations = own.withLock { $0 }
        #expect(generations.count == 3, "\(generations)")
        #expect(scopedSeen.withLock { $0 } == Array(generations.prefix(1)), "handed until it ended, and no subscription after")
        await harness.shutdown()
    }

    @Test func aSingleServerServesItsOwnSnapshotFromThePublication() async throws {
        let harness = try await ExporterHarness(devices: 2)
        defer { Task { await harness.shutdown() } }
        let handed = Mutex<[FleetState<ManualClock>]>([])
        harness.exporter.publication.subscribe { state in handed.withLock { $0.append(state) } }
        await harness.exporter.collector.collect()
        let last = try #require(handed.withLock { $0.last })
        #expect(last.servers.map(\.name) == [""])
        #expect(last.exposition.parts == nil, "a single server's bodies are whole")
        #expect(last.exposition.snapshot === harness.exporter.collector.snapshot)
        #expect(harness.exporter.snapshot === last.exposition.snapshot)
        #expect(harness.exporter.publication.current.exposition.snapshot === last.exposition.snapshot)
        // A plain value: what the server read and how its collections went, as of the publication.
        let server = try #require(last.servers.first)
        let collector = harness.exporter.collector
        #expect(server.stalenessWindow == collector.configuration.stalenessWindow)
        #expect(server.lastSuccess != nil && server.lastSuccess == collector.lastSuccess)
        #expect(server.health == collector.health)
        #expect(server.snapshot === collector.snapshot)
        #expect(Set(server.totals.keys) == Set(server.devices.readings.map(\.device.id)), "\(server.totals)")
        // One name per device, the fleet's naming (NUT's and SNMP's alike), none remembered once collected.
        #expect(Set(server.names.keys) == Set(server.devices.readings.map(\.device.id)), "\(server.names)")
        #expect(Set(server.names.values.map { $0.lowercased() }).count == server.names.count)
        #expect(server.remembered.isEmpty)
        #expect(server.sinceLastSuccess(at: last.publishedAt) == .zero)
        let reading = try #require(server.devices.readings.first)
        #expect(!server.isStale(reading.readAt, at: last.publishedAt))
        #expect(server.isStale(reading.readAt, at: last.publishedAt.advanced(by: server.stalenessWindow + .seconds(1))))
    }

    /// Publications are numbered one after the other, and a subscriber is handed them in that
    /// order, whatever publishes at once: four threads republishing 50 times each.
    @Test func subscribersAreHandedPublicationsInGenerationOrder() async throws {
        let harness = try await ExporterHarness(devices: 1)
        defer { Task { await harness.shutdown() } }
        let publication = harness.exporter.publication
        let first = publication.current.generation
        let handed = Mutex<[UInt64]>([])
        publication.subscribe { state in handed.withLock { $0.append(state.generation) } }
        try await withThrowingTaskGroup(of: Void.self) { group in
            for thread in 0..<4 {
                group.addTask {
                    try await NamedThread.run(name: "test-publish-\(thread)") {
                        for _ in 0..<50 { publication.republish() }
                    }
                }
            }
            try await group.waitForAll()
        }
        let generations = handed.withLock { $0 }
        #expect(zip(generations, generations.dropFirst()).allSatisfy { $0 < $1 }, "\(generations)")
        #expect(publication.current.generation == first + 200)
        #expect(generations.last == first + 200, "the newest is always handed")
    }

    /// A reload that changes the servers is published at once: `/targets` lists the new
    /// servers before any of them collected or merged.
    @Test func aReloadIsPublishedBeforeTheNextMerge() async throws {
        let harness = try ServersHarness(servers: [("a", ClientStub([.success(.make())]))],
                                         clientFactory: { _ in ClientStub([.success(.make())]) })
        var next = harness.exporter.configuration
        var added = next.servers[0]
        added.name = "b"
        added.winPower.baseURL = "http://127.0.0.9:8081"
        next.servers.append(added)
        _ = try await harness.exporter.apply(next)
        #expect(harness.exporter.publication.current.servers.map(\.name) == ["a", "b"])
        let targets = try await harness.get("/targets").text
        #expect(targets.contains("\"b\""), "\(targets)")
        await harness.exporter.close()
    }
}
