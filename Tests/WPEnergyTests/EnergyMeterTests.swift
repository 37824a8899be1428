import Foundation
import Synchronization
import Testing
import WPTestThreads
import WPEnergy
import WPLogging
import WPStorage
import WPRuntime
import WPTestSupport
import WPWallClock

@Suite(.ownThreads, .timeLimit(.minutes(3))) struct EnergyMeterTests {
    private func openMeter(store: any EnergyStore, clock: ManualClock, logger: WPLogger = .disabled,
                           persistence: PersistencePolicy = PersistencePolicy()) throws -> EnergyMeter<ManualClock> {
        try EnergyMeter.open(persistence: persistence, store: store, clock: clock, logger: logger)
    }

    /// Runs one cycle `seconds` after the previous one and waits for the save it asked for.
    @discardableResult
    private func cycle(_ meter: EnergyMeter<ManualClock>, _ clock: ManualClock, after seconds: Double,
                       _ samples: [EnergySample]) -> EnergyMeter<ManualClock>.CycleReport {
        clock.advance(by: .seconds(seconds))
        let report = meter.record(samples)
        try? meter.waitForSaves()
        return report
    }

    /// Another component's section of the state file changed while no total did: the final
    /// flush saves it; with nothing changed, it saves nothing.
    @Test func aChangedSectionIsSavedByTheFlushAlone() throws {
        let clock = ManualClock()
        let store = InMemoryEnergyStore()
        let meter = try openMeter(store: store, clock: clock)
        cycle(meter, clock, after: 0, [sample(100, id: "ups-1")])
        try meter.flush()
        let saves = store.savedStates.count
        try meter.flush()
        #expect(store.savedStates.count == saves, "nothing changed: no save")
        store.sections.replace("nut-names", with: [["ups-1", "jifang", "机房"]])
        try meter.flush()
        #expect(store.savedStates.count == saves + 1)
        #expect(store.savedStates.last?.sections == ["nut-names": [["ups-1", "jifang", "机房"]]])
        try meter.flush()
        #expect(store.savedStates.count == saves + 1)
    }

    /// A stored total out of range (1e300 J in a record whose checksum was made to match) is
    /// named in an error with its value and dropped: that device counts from zero, the others
    /// continue.
    @Test func aStoredTotalOutOfRangeIsNamedAndTheDeviceCountsFromZero() throws {
        var huge = StoredDeviceEnergy(joules: 10)
        huge.ledger.dischargeJoules = 1e300
        let store = InMemoryEnergyStore(initial: EnergyState(devices: [
            "good": StoredDeviceEnergy(joules: 3600), "bad": StoredDeviceEnergy(joules: 1e300), "ledger": huge,
        ]))
        let logs = InMemoryLogSink()
        let meter = try openMeter(store: store, clock: ManualClock(), logger: logs.logger())
        #expect(meter.totals == ["good": DeviceEnergy(joules: 3600)])
        let named = logs.records.filter { $0.message.hasPrefix("a stored energy record is out of range") }
        #expect(named.map { $0.fields["device"]?.description } == ["bad", "ledger"])
        #expect(named.map { $0.fields["field"]?.description } == ["joules", "discharge_joules"])
        #expect(named.first?.fields["value"]?.description == "1e+300")
    }

    /// A meter shared by several servers: each server reads only its own totals, keyed without
    /// its prefix, and a cycle reports only its own devices.
    @Test func aServersTotalsAndCycleReportHoldOnlyItsDevices() throws {
        let clock = ManualClock()
        let meter = try openMeter(store: InMemoryEnergyStore(), clock: clock)
        let a = ["a\u{1F}ups-1", "a\u{1F}ups-2"].map { sample(100, id: $0) }
        let b = [sample(300, id: "b\u{1F}ups-1")]
        cycle(meter, clock, after: 0, a)
        cycle(meter, clock, after: 0, b)
        cycle(meter, clock, after: 10, a)
        let report = cycle(meter, clock, after: 0, b)
        #expect(Set(report.totals.keys) == ["b\u{1F}ups-1"])
        #expect(report.totals["b\u{1F}ups-1"]?.joules == 3000)
        #expect(meter.totals(keyPrefix: "a\u{1F}") == ["ups-1": DeviceEnergy(joules: 1000), "ups-2": DeviceEnergy(joules: 1000)])
        #expect(meter.totals(keyPrefix: "b\u{1F}") == ["ups-1": DeviceEnergy(joules: 3000)])
        #expect(meter.totals(keyPrefix: "c\u{1F}").isEmpty)
        #expect(meter.totals(keyPrefix: "") == meter.totals)
    }

    /// What is served never exceeds what a crash now would restore: the counters are held at
    /// the last saved totals while saves fail or have not ended, and follow once one succeeds.
    @Test func servedCountersNeverExceedTheLastSavedTotals() async throws {
        let clock = ManualClock()
        var seed = EnergyState()
        seed.devices["ups"] = StoredDeviceEnergy(joules: 500, gaps: 0, ledger: StoredOutageLedger())
        let store = InMemoryEnergyStore(initial: seed)
        let meter = try openMeter(store: store, clock: clock)
        #expect(meter.servedTotals(keyPrefix: "")["ups"]?.joules == 500, "the loaded totals are on disk")
        cycle(meter, clock, after: 0, [sample(100), sample(50, id: "new")])
        store.failNextSaves(2)
        clock.advance(by: .seconds(10))
        let failed = meter.record([sample(100), sample(50, id: "new")])
        #expect(await meter.saved(failed, timeout: .seconds(60)) == false)
        #expect(meter.totals["ups"]?.joules == 1500)
        // The first cycle's save (of the starting point) succeeded: nothing integrated yet.
        #expect(meter.servedTotals(keyPrefix: "")["ups"]?.joules == 500)
        #expect(meter.servedTotals(keyPrefix: "")["new"]?.joules == 0, "a device never saved with energy serves 0")
        cycle(meter, clock, after: 10, [sample(100), sample(50, id: "new")])  // the second failure
        #expect(meter.servedTotals(keyPrefix: "")["ups"]?.joules == 500)
        clock.advance(by: .seconds(10))
        let saved = meter.record([sample(100), sample(50, id: "new")])
        #expect(await meter.saved(saved, timeout: .seconds(60)))
        #expect(meter.servedTotals(keyPrefix: "") == meter.totals)
        #expect(meter.servedTotals(keyPrefix: "")["ups"]?.joules == 3500)
        #expect(store.lastSaved?.devices["ups"]?.joules == 3500)
    }

    /// Counters are held; what an outage in progress says is served as it is.
    @Test func aHeldTotalKeepsTheLiveOutageFields() {
        var live = DeviceEnergy(joules: 900, gaps: 2)
        live.ledger.transfers = 3
        live.ledger.onBatterySeconds = 40
        live.ledger.inOutage = true
        live.ledger.lastStart = Date(timeIntervalSince1970: 1_000)
        live.ledger.observe(duration: 20)
        var saved = DeviceEnergy(joules: 700, gaps: 2)
        saved.ledger.transfers = 2
        saved.ledger.onBatterySeconds = 30
        let held = live.heldAt(saved)
        #expect(held.joules == 700 && held.gaps == 2)
        #expect(held.ledger.transfers == 2 && held.ledger.onBatterySeconds == 30)
        #expect(held.ledger.observedOutages == 0 && held.ledger.durationSum == 0)
        #expect(held.ledger.inOutage && held.ledger.lastStart == live.ledger.lastStart)
        #expect(live.heldAt(nil).joules == 0)
        #expect(saved.heldAt(live) == saved, "never above the live value either")
    }

    @Test func gapsAreCountedPerDeviceAndLoggedOncePerCycle() throws {
        let sink = InMemoryLogSink()
        let clock = ManualClock()
        let meter = try openMeter(store: InMemoryEnergyStore(), clock: clock, logger: sink.logger())
        let all = (0..<3).map { sample(100, id: "ups-\($0)") }
        cycle(meter, clock, after: 0, all)
        cycle(meter, clock, after: 5, all)
        let report = cycle(meter, clock, after: 90, all)  // WinPower unreachable for 90 s
        cycle(meter, clock, after: 5, all)
        #expect(report.summary.gapDevices.count == 3)
        for index in 0..<3 {
            #expect(meter.totals["ups-\(index)"] == DeviceEnergy(joules: 1000, gaps: 1))
        }
        let warnings = sink.records.filter { $0.level == .warn }
        #expect(warnings.count == 1)
        #expect(warnings.first?.fields["devices"] == .int(3))
        #expect(warnings.first?.fields["longest_gap_s"] == .double(90))
        #expect(meter.state.devices["ups-0"]?.gaps == 1, "gap counts are persisted")
    }

    /// A restart is a gap: the time the exporter was down is not guessed, totals continue from
    /// the stored values (through a real file store), and the first sample only starts a chain.
    @Test func restartContinuesFromStoredTotalsWithoutGuessingTheDowntime() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("wpenergy-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let configuration = StorageConfiguration(dataDirectory: directory)
        do {
            let store = try FileEnergyStore(configuration: configuration, logger: .disabled)
            defer { store.close() }
            let clock = ManualClock()
            let meter = try openMeter(store: store, clock: clock)
            #expect(meter.loaded.source == .fresh)
            for _ in 0..<3 { cycle(meter, clock, after: 5, [sample(100), sample(10, id: "other")]) }
            try meter.flush()
        }
        // New process: a new monotonic clock starting from zero, hours later in wall time.
        let store = try FileEnergyStore(configuration: configuration, logger: .disabled)
        defer { store.close() }
        let clock = ManualClock()
        let meter = try openMeter(store: store, clock: clock)
        #expect(meter.loaded.source == .primary)
        #expect(meter.totals["ups"]?.joules == 1000)
        cycle(meter, clock, after: 0, [sample(400), sample(50, id: "new")])
        #expect(meter.totals["ups"]?.joules == 1000, "nothing added for the downtime")
        #expect(meter.totals["new"]?.joules == 0)
        cycle(meter, clock, after: 5, [sample(400), sample(50, id: "new")])
        #expect(meter.totals["ups"]?.joules == 3000)
        #expect(meter.totals["new"]?.joules == 250)
        #expect(meter.totals["other"]?.joules == 100, "devices absent after the restart keep their totals")
        #expect(meter.state.devices["other"]?.joules == 100)
    }

    /// The wall clock only names files and stamps saves: stepping it back or forward changes
    /// nothing in the totals, which follow the monotonic clock.
    @Test func wallClockJumpsNeverChangeTotals() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("wpenergy-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let wall = Mutex(Date(timeIntervalSince1970: 1_763_779_200))
        let store = try FileEnergyStore(configuration: StorageConfiguration(dataDirectory: directory), logger: .disabled,
                                        wallClock: WallClock { wall.withLock { $0 } })
        defer { store.close() }
        let clock = ManualClock()
        let meter = try openMeter(store: store, clock: clock)
        var expected = 0.0
        for step in 0..<40 {
            wall.withLock { now in
                switch step {
                case 10: now -= 3600          // NTP steps the clock back an hour
                case 20: now += 86_400 * 365  // and forward a year
                case 30: now = Date(timeIntervalSince1970: 0)
                default: now += 5
                }
            }
            let report = cycle(meter, clock, after: 5, [sample(360)])
            if step > 0 { expected += 1800 }
            #expect(report.totals["ups"]?.joules == expected)
            #expect(report.saveRequested)
            #expect(meter.status.saves == step + 1)
        }
        #expect(try store.load().state.devices["ups"]?.joules == expected)
    }

    @Test func withoutSyncWritePersistsEveryFlushIntervalAndOnShutdown() throws {
        let store = InMemoryEnergyStore()
        let clock = ManualClock()
        let meter = try openMeter(store: store, clock: clock,
                                  persistence: PersistencePolicy(syncWrite: false, flushInterval: .seconds(60)))
        var persistedAt: [Int] = []
        for index in 0..<30 {
            if cycle(meter, clock, after: 5, [sample(100)]).saveRequested { persistedAt.append(index) }
        }
        #expect(persistedAt == [0, 12, 24])
        #expect(store.savedStates.count == 3)
        try meter.flush()
        #expect(store.savedStates.count == 4)
        #expect(store.lastSaved?.devices["ups"]?.joules == 14_500.0)
        try meter.flush()  // nothing changed since: no extra write
        #expect(store.savedStates.count == 4)
    }

    @Test func failedSavesKeepTotalsAndAreRetried() throws {
        let sink = InMemoryLogSink()
        let store = InMemoryEnergyStore()
        let clock = ManualClock()
        let meter = try openMeter(store: store, clock: clock, logger: sink.logger(),
                                  persistence: PersistencePolicy(syncWrite: false, flushInterval: .seconds(60)))
        cycle(meter, clock, after: 0, [sample(100)])
        store.failNextSaves(3)
        var outcomes: [Bool] = []
        for _ in 0..<16 {
            let failures = meter.status.persistFailures
            cycle(meter, clock, after: 5, [sample(100)])
            outcomes.append(meter.status.persistFailures == failures)
        }
        // Due at 60 s; fails three cycles in a row (retried every cycle, not after another minute).
        #expect(outcomes[11] == false && outcomes[12] == false && outcomes[13] == false && outcomes[14] == true)
        #expect(meter.status.persistFailures == 3)
        #expect(meter.status.lastPersistError == nil)
        #expect(store.lastSaved?.devices["ups"]?.joules == 7500.0, "the retried save has the full total")
        #expect(sink.records.filter { $0.level == .error }.count == 1, "one error per failure streak")
        #expect(sink.records.contains { $0.level == .info && $0.message.contains("works again") })
    }

    /// A streak whose cause changes (the data directory could not be recreated, then another
    /// process took its lock) logs the new cause once: the lock taken is never silent.
    @Test func aFailureStreakLogsEachNewCauseOnce() throws {
        let sink = InMemoryLogSink()
        let store = InMemoryEnergyStore()
        let clock = ManualClock()
        let meter = try openMeter(store: store, clock: clock, logger: sink.logger())
        store.failNextSaves(2)
        for _ in 0..<2 {
            cycle(meter, clock, after: 5, [sample(100)])
            #expect(throws: StorageError.self) { try meter.waitForSaves() }
        }
        store.failNextSaves(2, with: .lockTaken(lockFile: "/data/wpexporter.lock", ownerPID: 4242))
        for _ in 0..<2 {
            cycle(meter, clock, after: 5, [sample(100)])
            #expect(throws: StorageError.self) { try meter.waitForSaves() }
        }
        let errors = sink.records.filter { $0.level == .error }
        #expect(errors.count == 2)
        #expect(errors.last.map { "\($0.fields["error"] ?? "")".contains("pid 4242") } == true)
        #expect(meter.status.lastPersistError?.contains("lock was lost") == true)
    }

    @Test func resetAtStartupIsReportedInStatus() throws {
        let store = InMemoryEnergyStore(loaded: LoadedEnergyState(state: EnergyState(), source: .reset,
                                                                   quarantined: ["/data/energy.state.corrupt-x"]))
        let meter = try openMeter(store: store, clock: ManualClock())
        #expect(meter.status.stateWasReset)
        #expect(meter.loaded.quarantined == ["/data/energy.state.corrupt-x"])
    }

    @Test func unusableStorageFailsOpen() {
        let store = InMemoryEnergyStore()
        store.failLoads(with: .locked(lockFile: "/data/wpexporter.lock", ownerPID: 7))
        #expect(throws: StorageError.locked(lockFile: "/data/wpexporter.lock", ownerPID: 7)) {
            _ = try openMeter(store: store, clock: ManualClock())
        }
    }

    @Test func legacyImportIsPersistedByTheFirstFlush() throws {
        let loaded = LoadedEnergyState(state: EnergyState(devices: ["old": .init(joules: 36)], legacyFilesImported: true),
                                       source: .fresh, legacyImport: LegacyImportReport())
        let store = InMemoryEnergyStore(loaded: loaded)
        let meter = try openMeter(store: store, clock: ManualClock(),
                                  persistence: PersistencePolicy(syncWrite: false, flushInterval: .seconds(60)))
        try meter.flush()
        #expect(store.lastSaved?.legacyFilesImported == true)
        #expect(store.lastSaved?.devices["old"]?.joules == 36)
    }
}
