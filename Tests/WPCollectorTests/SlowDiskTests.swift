import Foundation
import Synchronization
import Testing
import WPTestThreads
import WPClient
import WPCollector
import WPEnergy
import WPLogging
import WPStorage
import WPRuntime
import WPTestSupport
import WPWallClock

/// An energy store whose saves block until the test releases them: a disk whose `fsync`
/// takes as long as the test wants.
private final class BlockingStore: EnergyStore {
    let entered = DispatchSemaphore(value: 0)
    let release = DispatchSemaphore(value: 0)
    private let guarded = Mutex<(blocking: Bool, saved: [EnergyState])>((false, []))
    let sections = StateSections()

    var saved: [EnergyState] { guarded.withLock { $0.saved } }

    func block() { guarded.withLock { $0.blocking = true } }

    /// Saves stop blocking; the one stuck now completes.
    func unblock() {
        guarded.withLock { $0.blocking = false }
        release.signal()
    }

    func load() throws -> LoadedEnergyState { LoadedEnergyState(state: EnergyState(), source: .fresh) }

    func save(_ state: EnergyState) throws {
        if guarded.withLock({ $0.blocking }) {
            entered.signal()
            release.wait()
        }
        guarded.withLock { $0.saved.append(state) }
    }
}

/// While a save is stuck in the store, everything `/health`, `/-/ready` and `/metrics` read
/// (and the skip handler's re-render) answers without waiting for it.
@Suite(.ownThreads, .timeLimit(.minutes(3))) struct SlowDiskTests {
    @Test func readsDoNotWaitForASaveInProgress() async throws {
        let store = BlockingStore()
        let clock = ManualClock()
        let meter = try EnergyMeter.open(persistence: PersistencePolicy(syncWrite: true), store: store,
                                         clock: clock, logger: .disabled)
        let client = ClientStub([.success(.make(devices: [Device.make(id: "ups-1", watts: 400)]))])
        let collector = WinPowerCollector(configuration: CollectorConfiguration(target: "http://winpower.test:8081"),
                                  client: client, meter: meter, clock: clock,
                                  wallClock: .fixed(Date(timeIntervalSince1970: 1_760_000_000)), logger: .disabled)
        await collector.collect()
        try meter.waitForSaves()
        clock.advance(by: .seconds(5))

        store.block()
        let recorded = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            meter.record([EnergySample(deviceID: "ups-1", watts: 400)])
            recorded.signal()
        }
        store.entered.wait()

        // The save is blocked: every reader must still answer. A reader that waited would
        // never signal until the release below, so the bounded wait fails instead of hanging.
        let answered = DispatchSemaphore(value: 0)
        let seen = Mutex<(health: CollectorHealth?, totals: [String: DeviceEnergy], skipped: Bool, text: String)>((nil, [:], false, ""))
        Thread.detachNewThread {
            let health = collector.health
            let totals = meter.totals
            _ = meter.status
            _ = meter.state
            let skipped = collector.recordSkippedCollections(total: 1)
            let text = String(decoding: collector.snapshot.text, as: UTF8.self)
            seen.withLock { $0 = (health, totals, skipped, text) }
            answered.signal()
        }
        let result = answered.wait(timeout: .now() + 120)
        store.release.signal()
        recorded.wait()
        try meter.waitForSaves()
        #expect(result == .success, "a reader waited for the blocked save")

        let values = seen.withLock { $0 }
        #expect(values.health?.lastCollectionSucceeded == true)
        #expect(values.skipped, "the skip handler re-rendered during the save")
        #expect(values.text.contains("winpower_exporter_collections_skipped_total 1"))
        // The total integrated before the save is what readers saw and what was stored.
        let total = try #require(values.totals["ups-1"])
        #expect(total.joules == 2000)
        #expect(store.saved.last?.devices["ups-1"]?.joules == 2000)
        #expect(meter.status.saves == 2)
        #expect(meter.status.persistFailures == 0)
    }

    /// More servers than the machine has cores, each collected by a real `Task` on the Swift
    /// concurrency pool, while the disk's save is stuck: every collection still runs and
    /// publishes, round after round, because no collection waits for the disk. (Before the
    /// writer thread, the first collection sat in the save holding the meter's save lock and
    /// the others blocked on it, one pool thread each, until the pool was empty.)
    @Test func everyServersCollectionsGoOnWhileASaveIsStuck() async throws {
        let store = BlockingStore()
        store.block()
        let clock = ManualClock()
        let meter = try EnergyMeter.open(persistence: PersistencePolicy(syncWrite: true), store: store,
                                         clock: clock, logger: .disabled)
        let servers = ProcessInfo.processInfo.activeProcessorCount + 2
        let collectors = (0..<servers).map { index in
            var configuration = CollectorConfiguration(target: "http://winpower-\(index).test:8081")
            configuration.energyKeyPrefix = EnergyKey.prefix(server: "s\(index)")
            return WinPowerCollector(configuration: configuration,
                             client: ClientStub([.success(.make(devices: [Device.make(id: "ups-1", watts: 360)]))]),
                             meter: meter, clock: clock, wallClock: .fixed(Date(timeIntervalSince1970: 1_760_000_000)),
                             logger: .disabled)
        }
        let rounds = 4
        let finished = DispatchSemaphore(value: 0)
        Task.detached {
            for _ in 0..<rounds {
                await withTaskGroup(of: Void.self) { group in
                    for collector in collectors { group.addTask { await collector.collect() } }
                }
                clock.advance(by: .seconds(10))
            }
            finished.signal()
        }
        store.entered.wait()
        // Waited for on a thread of its own, so a stuck pool fails the test instead of hanging it.
        let ran = await waitOffThePool(finished, seconds: 120)
        let stuckWhileRunning = store.saved.isEmpty
        store.unblock()
        #expect(ran, "collections waited for the stuck save")
        #expect(stuckWhileRunning, "the first save was still stuck while every round ran")
        for collector in collectors {
            #expect(collector.health.lastCollectionSucceeded)
        }
        // Once the disk recovers, the latest totals are saved: 3 intervals of 10 s at 360 W each.
        try meter.flush()
        let saved = try #require(store.saved.last)
        for index in 0..<servers {
            #expect(saved.devices[EnergyKey.prefix(server: "s\(index)") + "ups-1"]?.joules == 10_800)
        }
    }

    /// Waits for `semaphore` on a new thread (never a thread of the Swift pool).
    private func waitOffThePool(_ semaphore: DispatchSemaphore, seconds: Int) async -> Bool {
        await withCheckedContinuation { continuation in
            Thread.detachNewThread {
                continuation.resume(returning: semaphore.wait(timeout: .now() + .seconds(seconds)) == .success)
            }
        }
    }
}
