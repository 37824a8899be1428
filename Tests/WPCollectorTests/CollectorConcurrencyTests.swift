import Synchronization
import Testing
import WPClient
import WPCollector
import WPTestSupport

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

@Suite struct CollectorConcurrencyTests {
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
}
