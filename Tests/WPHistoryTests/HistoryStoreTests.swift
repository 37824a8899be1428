import Foundation
import Testing
import WPTestThreads
import WPTestSupport
@testable import WPHistory

/// Each UPS's readings in 5-minute slots, merged exactly into hours and days.
@Suite(.ownThreads, .timeLimit(.minutes(4))) struct HistoryStoreTests {
    let ups = HistoryUPS(server: "site-a", device: "ups-1")

    func path() throws -> String {
        let directory = temporaryPathRemovedAtExit("wpexporter-history")
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        return directory + "/history.db"
    }

    func sample(_ time: Int64, watts: Double?, charge: Double = 100, mode: Int = 3, energy: Double = 1) -> HistorySample {
        var values: [HistoryMetric: Double] = [.batteryCharge: charge, .inputFrequency: 49.98]
        values[.loadWatts] = watts
        return HistorySample(time: time, values: values, mode: mode, energyKWh: energy)
    }

    /// A slot is handed over when its UPS's first sample of a later slot arrives: its samples'
    /// least, greatest and mean (a sample without a value left out of that value), the last mode
    /// and energy total; a sample older than the open slot is dropped.
    @Test func samplesGatherIntoFiveMinuteSlots() throws {
        var accumulator = HistoryAccumulator()
        let start: Int64 = 1_764_115_200  // 2025-11-26 00:00 UTC
        #expect(accumulator.add(sample(start + 10, watts: 100), of: ups) == nil)
        #expect(accumulator.add(sample(start + 70, watts: nil, charge: 90), of: ups) == nil)
        #expect(accumulator.add(sample(start + 130, watts: 300, mode: 4, energy: 1.5), of: ups) == nil)
        #expect(accumulator.add(sample(start - 10, watts: 9_999), of: ups) == nil, "older than the open slot: dropped")
        let handed = accumulator.add(sample(start + 300, watts: 50), of: ups)
        let slot = try #require(handed)
        #expect(slot.start == start && slot.samples == 3)
        #expect(slot.mean(.loadWatts) == 200 && slot.range(.loadWatts) == 100...300)
        #expect(slot.aggregates[.loadWatts]?.count == 2)
        #expect(slot.range(.batteryCharge) == 90...100)
        #expect(slot.mean(.inputFrequency) == 49.98)
        #expect(slot.mode == 4 && slot.energyKWh == 1.5, "the last sample's")
        #expect(accumulator.closed(before: start + 599).isEmpty, "the next slot is not over yet")
        let closed = accumulator.closed(before: start + 600)
        #expect(closed.map(\.start) == [start + 300] && closed.first?.samples == 1)
        #expect(accumulator.openSlots.isEmpty)
    }

    /// Slots stored, merged into their hour and day exactly; read back by tier and range; a
    /// slot written in two parts merges; pruning deletes by tier.
    @Test func slotsAreStoredAndMergedIntoHoursAndDays() throws {
        let path = try path()
        let store = try HistoryStore(path: path)
        let hour: Int64 = 1_764_115_200 + 3_600
        var first = HistorySlot(ups: ups, start: hour)
        first.add(sample(hour + 1, watts: 100))
        first.add(sample(hour + 61, watts: 200))
        var second = HistorySlot(ups: ups, start: hour + 300)
        second.add(sample(hour + 301, watts: 400, mode: 4, energy: 2))
        var other = HistorySlot(ups: HistoryUPS(server: "site-b", device: "ups-1"), start: hour)
        other.add(sample(hour + 1, watts: 1))
        try store.write([first, second, other])

        let fine = try store.slots(of: ups, tier: .fiveMinutes, from: hour, to: hour + 3_600)
        #expect(fine == [first, second])
        let hourly = try #require(try store.slots(of: ups, tier: .hour, from: 0, to: .max).first)
        #expect(hourly.start == hour && hourly.samples == 3)
        #expect(hourly.range(.loadWatts) == 100...400)
        #expect(abs((hourly.mean(.loadWatts) ?? 0) - 700.0 / 3) <= 0.5, "the mean of the three, to the stored 1 W")
        #expect(hourly.mode == 4 && hourly.energyKWh == 2)
        let daily = try store.slots(of: ups, tier: .day, from: 0, to: .max)
        #expect(daily.map(\.start) == [HistoryTier.day.slot(of: hour)] && daily.first?.samples == 3)
        #expect(try store.slots(of: HistoryUPS(server: "site-b", device: "ups-1"), tier: .hour, from: 0, to: .max).first?.samples == 1)

        // The same 5-minute slot again (its second part, after a restart): merged, not replaced.
        var rest = HistorySlot(ups: ups, start: hour)
        rest.add(sample(hour + 121, watts: 600))
        try store.write([rest])
        let merged = try #require(try store.slots(of: ups, tier: .fiveMinutes, from: hour, to: hour + 1).first)
        #expect(merged.samples == 3 && merged.range(.loadWatts) == 100...600)
        #expect(try store.slots(of: ups, tier: .hour, from: 0, to: .max).first?.samples == 4)

        #expect(try store.prune(before: [.fiveMinutes: hour + 300]) == 2, "site-a's and site-b's first slots")
        #expect(try store.slots(of: ups, tier: .fiveMinutes, from: 0, to: .max).map(\.start) == [hour + 300])
        #expect(try store.slots(of: ups, tier: .hour, from: 0, to: .max).count == 1, "other tiers kept")
    }

    /// The view `slot_values` gives each slot in units: mean, least and greatest, the energy in kWh.
    /// A row another program wrote with impossible values (a negative distance, values past
    /// any reading) is read without a trap: that metric of the slot is left out, the rest kept.
    @Test func aRowWithImpossibleValuesLosesOnlyThoseValues() throws {
        let store = try HistoryStore(path: path())
        var slot = HistorySlot(ups: ups, start: 1_764_115_200)
        slot.add(sample(1_764_115_210, watts: 100, charge: 95))
        try store.write([slot])
        try store.database.execute("UPDATE slot SET load_w_below = -5, charge = 9223372036854775807, charge_above = 9223372036854775807")
        let read = try store.slots(of: ups, tier: .fiveMinutes, from: 0, to: .max)
        #expect(read.count == 1)
        #expect(read.first?.range(.loadWatts) == nil && read.first?.range(.batteryCharge) == nil)
        #expect(read.first?.mean(.inputFrequency) == 49.98, "the other values kept")
        var hours = 0
        try store.forEachSlot(tier: .hour, from: 0, to: .max) { _ in hours += 1 }
        #expect(hours == 1)
    }

    @Test func theViewGivesSlotsInUnits() throws {
        let store = try HistoryStore(path: try path())
        let start: Int64 = 1_764_115_200
        var slot = HistorySlot(ups: ups, start: start)
        slot.add(sample(start + 1, watts: 100, charge: 99.5, energy: 12.3456))
        slot.add(sample(start + 61, watts: 301, charge: 98))
        try store.write([slot])
        let rows = try store.database.rows("""
            SELECT server, device, start_utc, samples, load_w, load_w_min, load_w_max, charge, charge_min, charge_max,
                   in_hz, temp_c, energy_kwh FROM slot_values WHERE tier = 0
            """)
        #expect(rows == [[.text("site-a"), .text("ups-1"), .text("2025-11-26 00:00:00"), .integer(2), .integer(201), .integer(100),
                          .integer(301), .real(98.8), .real(98), .real(99.5), .real(49.98), .null, .real(1)]])
    }

    /// A schema-1 database (each metric's least, greatest, sum and count; energy in kWh) is
    /// converted in place on opening, its slots kept.
    @Test func aSchemaOneDatabaseIsConverted() throws {
        let path = try path()
        do {
            let database = try SQLiteDatabase(path: path)
            let columns = HistoryMetric.allCases.map { "\($0.column)_min INTEGER, \($0.column)_max INTEGER, \($0.column)_sum INTEGER, \($0.column)_n INTEGER" }
            try database.execute("""
                CREATE TABLE ups (id INTEGER PRIMARY KEY, server TEXT NOT NULL, device TEXT NOT NULL, UNIQUE (server, device));
                CREATE TABLE slot (tier INTEGER NOT NULL, ups INTEGER NOT NULL, start INTEGER NOT NULL, samples INTEGER NOT NULL,
                    \(columns.joined(separator: ", ")), mode INTEGER, energy_kwh REAL, PRIMARY KEY (tier, ups, start)) WITHOUT ROWID;
                INSERT INTO ups VALUES (1, 'site-a', 'ups-1');
                INSERT INTO slot (tier, ups, start, samples, load_w_min, load_w_max, load_w_sum, load_w_n, charge_min, charge_max,
                    charge_sum, charge_n, mode, energy_kwh) VALUES (1, 1, 1764115200, 3, 100, 400, 700, 3, 900, 1000, 2900, 3, 4, 2.0005);
                PRAGMA user_version = 1;
                """)
            database.close()
        }
        let store = try HistoryStore(path: path)
        #expect(try store.database.rows("PRAGMA user_version") == [[.integer(2)]])
        let slot = try #require(try store.slots(of: ups, tier: .hour, from: 0, to: .max).first)
        #expect(slot.samples == 3 && slot.range(.loadWatts) == 100...400 && slot.mean(.loadWatts) == 233)
        #expect(slot.range(.batteryCharge) == 90...100 && slot.mean(.batteryCharge) == 96.7)
        #expect(slot.mean(.temperature) == nil && slot.mode == 4 && slot.energyKWh == 2.001)
        #expect(try store.database.rows("SELECT count(*) FROM sqlite_master WHERE name = 'slot_schema1'") == [[.integer(0)]])
    }

    /// What a UPS is in at a start is journaled only where it differs from the journal's last
    /// word on it: an outage still going is not repeated, mains that came back while the
    /// exporter was down are, an alarm gone meanwhile is cleared; normal conditions of a UPS
    /// the journal has never seen are not written.
    @Test func eventsAtAStartFollowTheJournal() throws {
        let store = try HistoryStore(path: try path())
        let t: Int64 = 1_764_115_200
        func event(_ kind: HistoryEvent.Kind, _ time: Int64, code: String? = nil, atStart: Bool = false) -> HistoryEvent {
            HistoryEvent(time: time, server: "site-a", device: "ups-1", kind: kind, code: code, detail: code ?? "UPS 1", atStart: atStart)
        }
        // First run: never seen; on mains and fresh (not written), then an outage with an alarm.
        #expect(try store.record([event(.mainsBack, t, atStart: true), event(.fresh, t, atStart: true)]).isEmpty)
        try store.record([event(.onBattery, t + 10), event(.alarmRaised, t + 10, code: "0x21"), event(.alarmRaised, t + 10, code: "0x22")])
        // A restart during the outage, with one of the alarms gone meanwhile: only that is written.
        let restart = try store.record([event(.onBattery, t + 60, atStart: true), event(.alarmRaised, t + 60, code: "0x21", atStart: true),
                                        event(.fresh, t + 60, atStart: true)])
        #expect(restart.map(\.kind) == [.alarmCleared] && restart.first?.code == "0x22" && restart.first?.detail == "0x22")
        // Another restart after mains came back while the exporter was down.
        let back = try store.record([event(.mainsBack, t + 600, atStart: true), event(.alarmRaised, t + 600, code: "0x21", atStart: true)])
        #expect(back.map(\.kind) == [.mainsBack])
        let all = try store.events(ups: HistoryUPS(server: "site-a", device: "ups-1"), from: 0, to: .max, limit: 10).map(\.kind)
        #expect(all == [.mainsBack, .alarmCleared, .alarmRaised, .alarmRaised, .onBattery])
        #expect(try store.events(ups: nil, kinds: [.alarmRaised], from: t, to: t + 11, limit: 1).count == 1, "limited")
        #expect(try store.events(ups: nil, from: t + 11, to: .max, limit: 10).map(\.time) == [t + 600, t + 60])
        // Pruned with the daily slots.
        #expect(try store.prune(before: [.day: t + 60]) == 3)
    }

    /// A database of a newer schema is refused, named, and left as it is.
    @Test func aNewerSchemaIsRefused() throws {
        let path = try path()
        do {
            let store = try HistoryStore(path: path)
            try store.database.execute("PRAGMA user_version = 7")
        }
        #expect {
            try HistoryStore(path: path)
        } throws: { error in
            "\(error)".contains("newer wpexporter (schema 7; this one reads 2)") && "\(error)".contains(path)
        }
        #expect(try SQLiteDatabase(path: path).rows("PRAGMA user_version") == [[.integer(7)]])
    }
}
