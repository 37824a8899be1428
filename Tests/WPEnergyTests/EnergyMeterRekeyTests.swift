import Foundation
import Testing
import WPTestThreads
import WPEnergy
import WPLogging
import WPStorage
import WPRuntime
import WPTestSupport

/// A server renamed while the meter runs: `rekey(closing:_:)` and `reopen(server:)`.
@Suite(.ownThreads, .timeLimit(.minutes(3))) struct EnergyMeterRekeyTests {
    private static let wallOrigin = Date(timeIntervalSince1970: 1_760_000_000)

    private static func key(_ server: String, _ device: String = "ups") -> String {
        EnergyKey.qualified(server: server, device: device)
    }

    /// A reading of `device` of `server`: 200 W, on battery when `mode` is 4.
    private static func reading(_ server: String, _ device: String = "ups", mode: Int = 3) -> EnergySample {
        EnergySample(deviceID: key(server, device), watts: 200, mode: mode, runtimeSeconds: 600)
    }

    /// The meter after server `a` ran 4 cycles 5 s apart (one on battery) and server `b` too.
    private static func meterWithHistory(store: InMemoryEnergyStore, clock: ManualClock,
                                         logger: WPLogger = .disabled) throws -> EnergyMeter<ManualClock> {
        let meter = try EnergyMeter.open(store: store, clock: clock, logger: logger)
        for (index, mode) in [3, 4, 3, 3].enumerated() {
            clock.advance(by: .seconds(5))
            meter.record([reading("a", mode: mode), reading("a", "ups-2"), reading("b")], at: clock.now,
                         wall: wallOrigin.addingTimeInterval(Double(index) * 5))
            try meter.waitForSaves()
        }
        return meter
    }

    /// Moves every key of server `from` to server `to`.
    private static func rename(_ from: String, to: String) -> ([String]) -> [String: String] {
        { keys in
            Dictionary(uniqueKeysWithValues: keys.compactMap { key in
                EnergyKey.split(key).flatMap { $0.server == from ? (key, Self.key(to, $0.device)) : nil }
            })
        }
    }

    @Test func totalsAndLedgersMoveToTheNewKeysAndOnlyTheyAreSaved() throws {
        let store = InMemoryEnergyStore()
        let clock = ManualClock()
        let meter = try Self.meterWithHistory(store: store, clock: clock)
        let before = meter.totals
        let ups = try #require(before[Self.key("a")])
        #expect(ups.joules == 3000)
        #expect(ups.ledger.transfers == 1, "the history holds one transfer to battery")
        let savesBefore = store.savedStates.count

        let result = meter.rekey(closing: ["a"], Self.rename("a", to: "a2"))
        try meter.waitForSaves()

        #expect(result.moved == 2)
        #expect(result.skipped.isEmpty)
        let after = meter.totals
        #expect(after[Self.key("a2")] == ups, "energy, gaps and ledger travel together")
        #expect(after[Self.key("a2", "ups-2")] == before[Self.key("a", "ups-2")])
        #expect(after[Self.key("b")] == before[Self.key("b")], "other servers untouched")
        #expect(after[Self.key("a")] == nil)
        #expect(after[Self.key("a", "ups-2")] == nil)
        #expect(store.savedStates.count == savesBefore + 1, "a rekey saves at once")
        let saved = try #require(store.lastSaved)
        #expect(Set(saved.devices.keys) == [Self.key("a2"), Self.key("a2", "ups-2"), Self.key("b")])
        #expect(saved.devices[Self.key("a2")]?.joules == 3000)
        #expect(saved.devices[Self.key("a2")]?.ledger.transfers == 1)
    }

    @Test func theNewKeyContinuesTheChainInProgress() throws {
        let clock = ManualClock()
        let meter = try Self.meterWithHistory(store: InMemoryEnergyStore(), clock: clock)
        meter.rekey(closing: ["a"], Self.rename("a", to: "a2"))
        clock.advance(by: .seconds(5))
        meter.record([Self.reading("a2")], at: clock.now, wall: Self.wallOrigin.addingTimeInterval(20))
        #expect(meter.totals[Self.key("a2")]?.joules == 4000, "5 s at 200 W added, no gap counted")
        #expect(meter.totals[Self.key("a2")]?.gaps == 0)
    }

    @Test func lateReadingsOfTheClosedServerAreDroppedUntilReopened() throws {
        let sink = InMemoryLogSink()
        let store = InMemoryEnergyStore()
        let clock = ManualClock()
        let meter = try Self.meterWithHistory(store: store, clock: clock, logger: sink.logger())
        meter.rekey(closing: ["a"], Self.rename("a", to: "a2"))
        let moved = meter.totals

        clock.advance(by: .seconds(5))
        meter.record([Self.reading("a", mode: 4), Self.reading("b")], at: clock.now,
                     wall: Self.wallOrigin.addingTimeInterval(20))
        try meter.waitForSaves()
        #expect(meter.totals[Self.key("a")] == nil, "a late reading does not bring the old key back")
        #expect(meter.totals[Self.key("a2")] == moved[Self.key("a2")])
        #expect(meter.totals[Self.key("b")]?.joules == 4000, "other servers' readings in the same cycle count")
        #expect(store.lastSaved?.devices[Self.key("a")] == nil)
        #expect(sink.records.contains { $0.level == .warn && $0.fields["devices"] == .int(1) })

        meter.reopen(server: "a")
        clock.advance(by: .seconds(5))
        meter.record([Self.reading("a")], at: clock.now, wall: Self.wallOrigin.addingTimeInterval(25))
        #expect(meter.totals[Self.key("a")]?.joules == 0, "a new server of that name starts from zero")
        #expect(meter.totals[Self.key("a2")] == moved[Self.key("a2")])
    }

    @Test func aKeyThatAlreadyHoldsATotalIsNeverOverwritten() throws {
        let sink = InMemoryLogSink()
        let store = InMemoryEnergyStore()
        let clock = ManualClock()
        let meter = try Self.meterWithHistory(store: store, clock: clock, logger: sink.logger())
        let before = meter.totals

        let result = meter.rekey(closing: ["a"], Self.rename("a", to: "b"))
        try meter.waitForSaves()

        #expect(result.moved == 1, "ups-2 has no total under b and moves")
        #expect(result.skipped == [Self.key("a")])
        #expect(meter.totals[Self.key("b")] == before[Self.key("b")], "b keeps its own total")
        #expect(meter.totals[Self.key("a")] == before[Self.key("a")], "the skipped total stays where it was")
        #expect(meter.totals[Self.key("b", "ups-2")] == before[Self.key("a", "ups-2")])
        #expect(store.lastSaved?.devices[Self.key("a")]?.joules == 3000, "kept, so saved")
        #expect(sink.records.contains { $0.level == .warn && $0.fields["from"] == .string(Self.key("a")) })
    }

    @Test func aFailedSaveKeepsTheMoveInMemoryAndTheNextCycleSavesIt() throws {
        let store = InMemoryEnergyStore()
        let clock = ManualClock()
        let meter = try Self.meterWithHistory(store: store, clock: clock)
        store.failNextSaves(1)

        meter.rekey(closing: ["a"], Self.rename("a", to: "a2"))

        #expect(throws: StorageError.self) { try meter.waitForSaves() }
        #expect(meter.totals[Self.key("a2")]?.joules == 3000)
        #expect(store.lastSaved?.devices[Self.key("a")]?.joules == 3000, "the file still holds the old keys")
        clock.advance(by: .seconds(5))
        meter.record([Self.reading("b")], at: clock.now, wall: Self.wallOrigin.addingTimeInterval(20))
        try meter.waitForSaves()
        let saved = try #require(store.lastSaved)
        #expect(saved.devices[Self.key("a2")]?.joules == 3000)
        #expect(saved.devices[Self.key("a")] == nil)
    }
}
