import Synchronization
import Testing
import WPTestThreads
import WPClient
import WPCollector
import WPTestSupport
import WPRuntime

/// A client whose fetch suspends until the test releases it: WinPower "hanging".
private final class GatedClient: WinPowerClient {
    private let gate = Mutex<CheckedContinuation<Void, Never>?>(nil)
    let entered: AsyncStream<Void>
    private let enteredContinuation: AsyncStream<Void>.Continuation

    init() {
        (entered, enteredContinuation) = AsyncStream.makeStream(of: Void.self)
    }

    func fetchDevices() async throws -> DeviceReadout {
        await withCheckedContinuation { continuation in
            gate.withLock { $0 = continuation }
            enteredContinuation.yield()
        }
        return .make()
    }

    func release() {
        gate.withLock { gate in
            gate?.resume()
            gate = nil
        }
    }
}

@Suite(.ownThreads, .timeLimit(.minutes(3))) struct CollectorConcurrencyTests {
    @Test func readersNeverWaitForWinPowerNorSeeHalfACycle() async throws {
        let client = GatedClient()
        let fixture = try CollectorFixture(client: client)
        let before = fixture.collector.snapshot
        let cycle = Task { await fixture.collector.collect() }
        for await _ in client.entered { break }
        // WinPower is "hanging" inside fetchDevices: reads return at once, with the old snapshot.
        #expect(fixture.collector.snapshot === before)
        #expect(fixture.collector.health.lastAttempt == fixture.epoch)
        #expect(fixture.collector.health.lastSuccess == nil)
        client.release()
        await cycle.value
        let after = fixture.collector.snapshot
        #expect(after !== before)
        #expect(after.generatedAt == fixture.epoch)
        #expect(try fixture.exposition().value("winpower_device_load_total_watts") == 195)
    }

    /// A collection that hangs past the staleness window publishes nothing until it ends; a
    /// skipped tick reported meanwhile publishes the new count at once, without the readings
    /// that went stale (and with `up` 0), keeping the energy counters.
    @Test func staleReadingsAreWithdrawnWhileACollectionHangs() async throws {
        let client = GatedClient()
        let fixture = try CollectorFixture(client: client) // 5 s interval: 15 s window
        for _ in 0..<2 { // two readings 5 s apart: some energy
            let cycle = Task { await fixture.collector.collect() }
            for await _ in client.entered { break }
            client.release()
            await cycle.value
            fixture.clock.advance(by: .seconds(5))
        }
        let energy = try #require(try fixture.exposition().value("winpower_device_energy_joules_total"))
        #expect(energy > 0)
        let hung = Task { await fixture.collector.collect() }
        for await _ in client.entered { break }
        #expect(fixture.collector.health.inProgress)
        let served = fixture.collector.snapshot
        fixture.clock.advance(by: .seconds(10)) // the reading is 15 s old: not yet stale
        #expect(fixture.collector.recordSkippedCollections(total: 1))
        let counted = try fixture.exposition()
        #expect(counted.value("winpower_exporter_collections_skipped_total") == 1)
        #expect(counted.value("winpower_exporter_up") == 1)
        #expect(counted.value("winpower_device_load_total_watts") == 195)
        #expect(fixture.collector.snapshot !== served)
        fixture.clock.advance(by: .seconds(1))
        #expect(fixture.collector.recordSkippedCollections(total: 1) == false, "no new skip: nothing published")
        #expect(fixture.collector.recordSkippedCollections(total: 2))
        let withdrawn = try fixture.exposition()
        #expect(withdrawn.value("winpower_exporter_collections_skipped_total") == 2)
        #expect(withdrawn.value("winpower_exporter_up") == 0)
        #expect(withdrawn.value("winpower_device_load_total_watts") == nil)
        #expect(withdrawn.value("winpower_exporter_device_count") == 0)
        #expect(withdrawn.value("winpower_device_energy_joules_total") == energy, "energy counters are kept")
        #expect(fixture.collector.snapshot.generatedAt == served.generatedAt, "still the last collection's snapshot")
        client.release()
        await hung.value
        #expect(try fixture.exposition().value("winpower_device_load_total_watts") == 195)
        #expect(!fixture.collector.health.inProgress)
    }
}
