import Foundation
import Testing
import WPTestThreads
import WPEnergy
import WPLogging
import WPStorage
import WPRuntime
import WPTestSupport

/// The ledger through the meter: saved with the totals, by the same saves only.
@Suite(.ownThreads, .timeLimit(.minutes(3))) struct OutageMeterTests {
    func reading(_ mode: Int) -> EnergySample {
        EnergySample(deviceID: "ups", watts: 200, mode: mode, runtimeSeconds: 600)
    }

    @Test func theLedgerAddsNoSaveAndIsSavedWithTheTotals() throws {
        let store = InMemoryEnergyStore()
        let clock = ManualClock()
        let meter = try EnergyMeter.open(persistence: PersistencePolicy(syncWrite: false, flushInterval: .seconds(60)),
                                         store: store, clock: clock, logger: .disabled)
        let wallOrigin = Date(timeIntervalSince1970: 1_760_000_000)
        // 30 cycles 5 s apart, alternating 20 s on battery and 20 s on line: many transitions.
        for index in 0..<30 {
            clock.advance(by: .seconds(5))
            meter.record([reading(index / 4 % 2 == 1 ? 4 : 3)], at: clock.now,
                         wall: wallOrigin.addingTimeInterval(Double(index) * 5))
            try meter.waitForSaves()
        }
        // The same saves as without a ledger (withoutSyncWritePersistsEveryFlushIntervalAndOnShutdown).
        #expect(store.savedStates.count == 3)
        try meter.flush()
        let saved = try #require(store.lastSaved?.devices["ups"])
        #expect(OutageLedger(saved.ledger) == meter.totals["ups"]?.ledger)
        #expect(saved.ledger.transfers == 4)
        // Three finished outages of 4 readings (15 s between them, 2.5 s either side), then
        // 2.5 + 5 s of the open one.
        #expect(saved.ledger.onBatterySeconds == 3 * 20 + 7.5)
        #expect(saved.ledger.dischargeJoules == saved.ledger.onBatterySeconds * 200)
        #expect(OutageLedger(saved.ledger).observedOutages == 3)
        // A restart from the saved state continues the open outage.
        let reopened = try EnergyMeter.open(store: store, clock: clock, logger: .disabled)
        clock.advance(by: .seconds(5))
        reopened.record([reading(4)], at: clock.now, wall: wallOrigin.addingTimeInterval(150))
        #expect(reopened.totals["ups"]?.ledger.transfers == 4)
        #expect(reopened.totals["ups"]?.ledger.inOutage == true)
    }
}
