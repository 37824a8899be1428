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
import WPCompression
import WPWallClock

private let deviceID = "e156e6cb-41cb-4b35-b0dd-869929186a5c"
private let device = ["device_id": deviceID]

@Suite(.ownThreads, .timeLimit(.minutes(3))) struct CollectorTests {
    @Test func exportsEveryValueOfAReadout() async throws {
        let fixture = try CollectorFixture(client: ClientStub([.success(.make())]))
        await fixture.collector.collect()
        let exposition = try fixture.exposition()
        let expected: [String: Double] = [
            "winpower_device_connected": 1, "winpower_device_load_percent": 6, "winpower_device_load_total_watts": 195,
            "winpower_device_load_phase1_watts": 195, "winpower_device_load_total_va": 198,
            "winpower_device_load_phase1_va": 198, "winpower_device_input_voltage": 236.8,
            "winpower_device_output_voltage": 220.1, "winpower_device_output_current": 1.1,
            "winpower_device_input_frequency": 49.9, "winpower_device_output_frequency": 49.9,
            "winpower_device_battery_charging": 1, "winpower_device_battery_capacity": 90,
            "winpower_device_battery_remain_seconds": 6723, "winpower_device_battery_voltage_volts": 81.4,
            "winpower_device_ups_temperature": 27, "winpower_device_mode": 3, "winpower_device_status_code": 1,
            "winpower_device_battery_status_code": 2, "winpower_device_test_status_code": 1,
            "winpower_device_on_battery": 0, "winpower_device_alarm": 0, "winpower_device_fault": 0,
            "winpower_device_active_alarms": 0, "winpower_device_rated_apparent_power_va": 3000,
            "winpower_device_rated_voltage_volts": 220, "winpower_device_rated_frequency_hertz": 50,
            "winpower_device_rated_battery_voltage_volts": 72, "winpower_device_energy_joules_total": 0,
            "winpower_device_cumulative_energy": 0, "winpower_device_energy_gaps_total": 0,
            "winpower_device_last_update_timestamp_seconds": 1_760_365_813,
        ]
        for (name, value) in expected {
            #expect(exposition.value(name, device) == value, "\(name)")
            #expect(exposition.samples(name).first?.labels == ["device_id": deviceID, "device_name": "C3K", "device_type": "1"],
                    "\(name)")
        }
        #expect(exposition.samples("winpower_device_info").first?.labels == [
            "device_id": deviceID, "device_name": "C3K", "device_type": "1", "model": "ON-LINE", "firmware_version": "03.09"])
        #expect(exposition.value("winpower_device_info") == 1)
        #expect(exposition.samples("winpower_device_fault_info").isEmpty)
        let exporter: [String: Double] = [
            "winpower_exporter_up": 1, "winpower_exporter_device_count": 1, "winpower_connection_status": 1,
            "winpower_auth_status": 1, "winpower_token_expiry_seconds": 1800,
            "winpower_exporter_last_collection_success": 1,
            "winpower_exporter_last_collection_timestamp_seconds": 1_760_365_813,
            "winpower_exporter_collections_skipped_total": 0, "winpower_exporter_energy_state_reset": 0,
            "winpower_exporter_energy_persist_failures_total": 0,
            "winpower_exporter_collection_duration_seconds_count": 1,
        ]
        for (name, value) in exporter {
            #expect(exposition.value(name) == value, "\(name)")
        }
        #expect(exposition.value("winpower_api_response_time_seconds_count", ["endpoint": "device_list"]) == 1)
        #expect(exposition.value("winpower_api_response_time_seconds_sum", ["endpoint": "device_list"]) == 0.012)
        #expect(exposition.value("winpower_api_response_time_seconds_count", ["endpoint": "login"]) == 0)
        for kind in ClientError.Kind.allCases {
            #expect(exposition.value("winpower_exporter_scrape_errors_total", ["error_type": kind.rawValue]) == 0)
        }
        let snapshot = fixture.collector.snapshot
        #expect(snapshot.generatedAt == fixture.epoch)
        #expect(snapshot.deviceCount == 1)
        #expect(snapshot.seriesCount == exposition.lines.count)
        #expect(fixture.collector.health == CollectorHealth(lastAttempt: fixture.epoch, lastFinished: fixture.epoch, lastSuccess: fixture.epoch,
            lastError: nil, winPowerReachable: true, authenticated: true, deviceCount: 1))
    }

    @Test func missingReadingsAndAbsentCodesAreOmitted() async throws {
        let fixture = try CollectorFixture(client: ClientStub([.success(.collectorGolden())]))
        await fixture.collector.collect()
        let exposition = try fixture.exposition()
        let offline = ["device_id": "0b0c4d6e-0004-4b35-b0dd-000000000004"]
        #expect(exposition.value("winpower_device_connected", offline) == 0)
        #expect(exposition.samples("winpower_device_connected", offline).first?.labels["device_name"] == "")
        for name in ["winpower_device_load_total_watts", "winpower_device_load_percent", "winpower_device_input_voltage",
                     "winpower_device_mode", "winpower_device_status_code", "winpower_device_battery_status_code",
                     "winpower_device_test_status_code", "winpower_device_on_battery", "winpower_device_alarm",
                     "winpower_device_active_alarms", "winpower_device_ups_temperature",
                     "winpower_device_battery_charging", "winpower_device_fault"] {
            #expect(exposition.samples(name, offline).isEmpty, "\(name) must be omitted, not 0")
        }
        #expect(exposition.value("winpower_device_fault", ["device_id": "0b0c4d6e-0001-4b35-b0dd-000000000001"]) == 0)
        let fault = ["device_id": "0b0c4d6e-0003-4b35-b0dd-000000000003"]
        #expect(exposition.samples("winpower_device_ups_temperature", fault).isEmpty)
        #expect(exposition.samples("winpower_device_test_status_code", fault).isEmpty)
        #expect(exposition.value("winpower_device_fault", fault) == 1)
        #expect(exposition.value("winpower_device_alarm", fault) == 1)
        #expect(exposition.samples("winpower_device_fault_info", fault).first?.labels["fault_code"] == "0B")
        #expect(exposition.samples("winpower_device_fault_info").count == 1)
        #expect(exposition.samples("winpower_device_info", fault).first?.labels["firmware_version"] == "")
        let battery = ["device_id": "0b0c4d6e-0002-4b35-b0dd-000000000002"]
        #expect(exposition.value("winpower_device_on_battery", battery) == 1)
        #expect(exposition.value("winpower_device_active_alarms", battery) == 1)
        #expect(exposition.samples("winpower_device_on_battery", battery).first?.labels["device_name"] == "Server room \"A\"")
    }

    @Test func failedCyclesWithdrawGaugesAfterTheStalenessWindowAndKeepEnergy() async throws {
        let stub = ClientStub([.success(.make())])
        let fixture = try CollectorFixture(client: stub)
        await fixture.collector.collect()
        fixture.clock.advance(by: .seconds(5))
        await fixture.collector.collect()
        stub.enqueue(.failure(ClientError(.network, "connection refused by winpower.test:8081")))
        fixture.clock.advance(by: .seconds(5))
        await fixture.collector.collect()
        var exposition = try fixture.exposition()
        #expect(exposition.value("winpower_device_load_total_watts", device) == 195, "age 5 s is within the window")
        #expect(exposition.value("winpower_connection_status") == 0)
        #expect(exposition.value("winpower_exporter_up") == 1)
        #expect(exposition.value("winpower_exporter_last_collection_success") == 0)
        #expect(exposition.value("winpower_exporter_scrape_errors_total", ["error_type": "network"]) == 1)

        fixture.clock.advance(by: .seconds(10))  // last success 15 s ago: still within
        await fixture.collector.collect()
        #expect(try fixture.exposition().value("winpower_device_load_total_watts", device) == 195)
        fixture.clock.advance(by: .seconds(1))
        await fixture.collector.collect()
        exposition = try fixture.exposition()
        #expect(exposition.samples("winpower_device_load_total_watts").isEmpty)
        #expect(exposition.samples("winpower_device_info").isEmpty)
        #expect(exposition.samples("winpower_device_connected").isEmpty)
        #expect(exposition.value("winpower_device_energy_joules_total", device) == 975)
        #expect(exposition.value("winpower_device_cumulative_energy", device) == 975.0 / 3600)
        #expect(exposition.value("winpower_device_last_update_timestamp_seconds", device) == 1_760_365_818)
        #expect(exposition.value("winpower_exporter_up") == 0)
        #expect(exposition.value("winpower_exporter_device_count") == 0)
        #expect(exposition.value("winpower_exporter_scrape_errors_total", ["error_type": "network"]) == 3)
        #expect(fixture.collector.snapshot.deviceCount == 0)
        #expect(!fixture.collector.health.isHealthy(sinceLastSuccess: fixture.collector.timeSinceLastSuccess(),
                                                   stalenessWindow: .seconds(15)))

        stub.enqueue(.success(.make()))
        fixture.clock.advance(by: .seconds(5))
        await fixture.collector.collect()
        exposition = try fixture.exposition()
        #expect(exposition.value("winpower_device_load_total_watts", device) == 195)
        #expect(exposition.value("winpower_exporter_up") == 1)
        #expect(exposition.value("winpower_connection_status") == 1)
        // 21 s between successes (t = 5 → 26) is within max_gap (60 s): the trapezoid spans the outage.
        let joules = exposition.samples("winpower_device_energy_joules_total", device).first?.value ?? 0
        #expect(abs(joules - (975 + 195 * 21)) < 1e-6, "\(joules.bitPattern) \(Double(5070).bitPattern)")
        #expect(fixture.collector.health.isHealthy(sinceLastSuccess: fixture.collector.timeSinceLastSuccess(),
                                                  stalenessWindow: .seconds(15)))
        #expect(fixture.collector.timeSinceLastSuccess() == .zero)
        #expect(fixture.sink.allText.contains("collection works again"))
    }

    /// One info line says the first successful collection worked (and how many devices it
    /// read), also when earlier attempts failed; later successes say nothing more.
    @Test func theFirstSuccessfulCollectionIsLoggedOnce() async throws {
        let stub = ClientStub([.failure(ClientError(.network, "refused")), .success(.make()), .success(.make())])
        let fixture = try CollectorFixture(client: stub)
        for _ in 0..<3 {
            await fixture.collector.collect()
            fixture.clock.advance(by: .seconds(5))
        }
        let first = fixture.sink.records.filter { $0.message == "first collection" }
        #expect(first.count == 1)
        #expect(first.first?.level == .info)
        #expect(first.first?.fields["devices"] == .int(1))
        #expect(!fixture.sink.allText.contains("collection works again"), "the first success is not a recovery")
    }

    @Test func aDeviceMissingFromTheReadoutIsWithdrawnAfterTheWindow() async throws {
        let other = Device.make(id: "7a1b2c3d-0000-4000-8000-000000000002", alias: "B", watts: 100)
        let stub = ClientStub([.success(.make(devices: [.make(), other])), .success(.make(devices: [.make()]))])
        let fixture = try CollectorFixture(client: stub)
        await fixture.collector.collect()
        fixture.clock.advance(by: .seconds(5))
        await fixture.collector.collect()
        let gone = ["device_id": other.id]
        #expect(try fixture.exposition().value("winpower_device_load_total_watts", gone) == 100)
        fixture.clock.advance(by: .seconds(11))
        await fixture.collector.collect()
        let exposition = try fixture.exposition()
        #expect(exposition.samples("winpower_device_load_total_watts", gone).isEmpty)
        #expect(exposition.value("winpower_device_load_total_watts", device) == 195)
        #expect(exposition.value("winpower_device_energy_joules_total", gone) == 0)
        #expect(exposition.value("winpower_exporter_device_count") == 1)
        #expect(exposition.value("winpower_exporter_up") == 1)
    }

    @Test func controlCharactersFromWinPowerNeverReachTheExposition() async throws {
        let hostile = Device.make(alias: "UPS\u{0}\u{1B}]0;owned\u{7}\u{1B}[2J")
        let fixture = try CollectorFixture(client: ClientStub([.success(.make(devices: [hostile]))]))
        await fixture.collector.collect()
        let exposition = try fixture.exposition()
        #expect(exposition.samples("winpower_device_load_total_watts").map(\.labels["device_name"])
                == ["UPS\u{FFFD}\u{FFFD}]0;owned\u{FFFD}\u{FFFD}[2J"])
        let bytes = Array(fixture.collector.snapshot.text)
        #expect(!bytes.contains(0) && !bytes.contains(0x1B) && !bytes.contains(0x07))
    }

    @Test func aRenamedDeviceKeepsOneSeries() async throws {
        let renamed = Device.make(alias: "New name")
        let fixture = try CollectorFixture(client: ClientStub([.success(.make()), .success(.make(devices: [renamed]))]))
        await fixture.collector.collect()
        fixture.clock.advance(by: .seconds(5))
        await fixture.collector.collect()
        let exposition = try fixture.exposition()
        #expect(exposition.samples("winpower_device_load_total_watts").map(\.labels["device_name"]) == ["New name"])
        #expect(exposition.samples("winpower_device_energy_joules_total").map(\.labels["device_name"]) == ["New name"])
    }

    @Test(arguments: ClientError.Kind.allCases)
    func errorsAreCountedByKind(kind: ClientError.Kind) async throws {
        let stub = ClientStub([.failure(ClientError(kind, "what failed")), .failure(ClientError(kind, "again"))])
        let fixture = try CollectorFixture(client: stub)
        await fixture.collector.collect()
        await fixture.collector.collect()
        let exposition = try fixture.exposition()
        for other in ClientError.Kind.allCases {
            #expect(exposition.value("winpower_exporter_scrape_errors_total", ["error_type": other.rawValue])
                    == (other == kind ? 2 : 0))
        }
        let reached = [.auth, .httpStatus, .apiCode, .decode].contains(kind)
        #expect(exposition.value("winpower_connection_status") == (reached ? 1 : 0))
        #expect(exposition.value("winpower_auth_status") == 0)
        #expect(exposition.value("winpower_exporter_up") == 0)
        #expect(exposition.value("winpower_exporter_collection_duration_seconds_count") == 2)
        let health = fixture.collector.health
        #expect(health.lastError == "\(kind.rawValue): again")
        #expect(health.lastSuccess == nil)
        #expect(health.lastAttempt == fixture.epoch)
        #expect(health.winPowerReachable == reached)
    }

    @Test func authStatusAndTokenExpiryFollowTheToken() async throws {
        let stub = ClientStub([.success(.make())])
        let fixture = try CollectorFixture(client: stub)
        await fixture.collector.collect()
        fixture.clock.advance(by: .seconds(100))
        stub.enqueue(.failure(ClientError(.timeout, "no answer within 10 s")))
        await fixture.collector.collect()
        var exposition = try fixture.exposition()
        #expect(exposition.value("winpower_auth_status") == 1, "the token is still valid while WinPower is unreachable")
        #expect(exposition.value("winpower_connection_status") == 0)
        #expect(exposition.value("winpower_token_expiry_seconds") == 1700)
        stub.enqueue(.failure(ClientError(.auth, "login rejected: check username and password")))
        await fixture.collector.collect()
        exposition = try fixture.exposition()
        #expect(exposition.value("winpower_auth_status") == 0)
        #expect(exposition.value("winpower_connection_status") == 1)
        #expect(exposition.value("winpower_token_expiry_seconds") == 0, "no token held: 0, not absent")
        #expect(!fixture.collector.health.authenticated)
    }

    @Test func energyContinuesFromTheStoredTotal() async throws {
        let store = InMemoryEnergyStore(initial: EnergyState(devices: [deviceID: StoredDeviceEnergy(joules: 7_200_000, gaps: 2),
                                                                        "never-seen": StoredDeviceEnergy(joules: 10)]))
        let fixture = try CollectorFixture(client: ClientStub([.success(.make())]), store: store)
        #expect(try fixture.exposition().samples("winpower_device_energy_joules_total").isEmpty,
                "labels of stored devices are unknown until they are read")
        await fixture.collector.collect()
        fixture.clock.advance(by: .seconds(5))
        await fixture.collector.collect()
        let exposition = try fixture.exposition()
        #expect(exposition.value("winpower_device_energy_joules_total", device) == 7_200_975)
        #expect(exposition.value("winpower_device_cumulative_energy", device) == 7_200_975.0 / 3600)
        #expect(exposition.value("winpower_device_energy_gaps_total", device) == 2)
        #expect(exposition.samples("winpower_device_energy_joules_total", ["device_id": "never-seen"]).isEmpty)
        try fixture.meter.waitForSaves()
        #expect(store.lastSaved?.devices[deviceID]?.joules == 7_200_975)
        #expect(store.lastSaved?.devices["never-seen"]?.joules == 10)
    }

    @Test func persistFailuresAreExported() async throws {
        let store = InMemoryEnergyStore()
        store.failNextSaves(2)
        let fixture = try CollectorFixture(client: ClientStub([.success(.make())]), store: store)
        // Saves run on the meter's writer thread: a cycle exports the failures known when it renders.
        for _ in 0..<2 {
            await fixture.collector.collect()
            #expect(throws: StorageError.self) { try fixture.meter.waitForSaves() }
            fixture.clock.advance(by: .seconds(5))
        }
        await fixture.collector.collect()
        #expect(try fixture.exposition().value("winpower_exporter_energy_persist_failures_total") == 2)
    }

    /// 0 while saves fail (a cycle renders the outcomes known then), 1 once one succeeded. The
    /// test waits for saves by suspending (`save(timeout:)`), never blocking Swift's pool.
    @Test func lastSaveSuccessfulFollowsTheSaves() async throws {
        let store = InMemoryEnergyStore()
        let fixture = try CollectorFixture(client: ClientStub([.success(.make())]), store: store)
        await fixture.collector.collect()
        #expect(try fixture.exposition().value("winpower_exporter_energy_last_save_successful") == 1)
        store.failNextSaves(1_000)
        fixture.clock.advance(by: .seconds(5))
        await fixture.collector.collect()
        await #expect(throws: StorageError.self) { try await fixture.meter.save(timeout: .seconds(60)) }
        fixture.clock.advance(by: .seconds(5))
        await fixture.collector.collect()
        #expect(try fixture.exposition().value("winpower_exporter_energy_last_save_successful") == 0)
        store.failNextSaves(0)
        try await fixture.meter.save(timeout: .seconds(60))
        fixture.clock.advance(by: .seconds(5))
        await fixture.collector.collect()
        #expect(try fixture.exposition().value("winpower_exporter_energy_last_save_successful") == 1)
    }

    @Test func skippedCollectionsNeverDecrease() async throws {
        let fixture = try CollectorFixture(client: ClientStub([.success(.make())]))
        fixture.collector.recordSkippedCollections(total: 3)
        fixture.collector.recordSkippedCollections(total: 2)
        await fixture.collector.collect()
        #expect(try fixture.exposition().value("winpower_exporter_collections_skipped_total") == 3)
    }

    @Test func theFirstSnapshotExistsBeforeAnyCollection() throws {
        let stub = ClientStub([.success(.make())])
        let fixture = try CollectorFixture(client: stub)
        let snapshot = fixture.collector.snapshot
        #expect(snapshot.generatedAt == nil)
        #expect(stub.calls == 0)
        let exposition = try fixture.exposition()
        #expect(exposition.value("winpower_exporter_up") == 0)
        #expect(exposition.value("winpower_exporter_last_collection_success") == 0)
        #expect(exposition.samples("winpower_exporter_last_collection_timestamp_seconds").isEmpty)
        #expect(exposition.value("winpower_connection_status") == 0)
        #expect(fixture.collector.health == CollectorHealth())
    }

    @Test func gzipBodiesDecodeToThePlainBodies() async throws {
        let fixture = try CollectorFixture(client: ClientStub([.success(.collectorGolden())]))
        await fixture.collector.collect()
        let snapshot = fixture.collector.snapshot
        #expect(Gzip.decompress(snapshot.textGzip) == snapshot.text)
        #expect(Gzip.decompress(snapshot.openMetricsGzip) == snapshot.openMetrics)
        #expect(snapshot.textGzip.count < snapshot.text.count)
        #expect(Gzip.decompress(MetricsSnapshot.empty.textGzip) == [])
        let trailer = Array("# EOF\n".utf8)
        let (body, suffix) = snapshot.gzipBody(openMetrics: true, appending: trailer)
        #expect(Gzip.decompress(body + suffix) == snapshot.openMetrics + trailer, "the per-scrape part continues the same member")
        #expect(body == Array(snapshot.openMetricsGzip.dropLast(10)), "the snapshot's blocks are sent as they are")
        let (emptyBody, emptySuffix) = MetricsSnapshot.empty.gzipBody(openMetrics: false, appending: trailer)
        #expect(Gzip.decompress(emptyBody + emptySuffix) == trailer)
        #expect(Gzip.decompress(body + snapshot.gzipBody(openMetrics: true, appending: []).suffix) == snapshot.openMetrics)
        #expect(!String(decoding: snapshot.openMetrics, as: UTF8.self).contains("# EOF"))
    }

    @Test func configurationDefaults() {
        #expect(CollectorConfiguration().stalenessWindow == .seconds(15))
        #expect(CollectorConfiguration(interval: .seconds(10)).stalenessWindow == .seconds(30))
        #expect(CollectorConfiguration(interval: .seconds(1)).stalenessWindow == .seconds(15))
        #expect(CollectorConfiguration(interval: .seconds(10), stalenessWindow: .seconds(12)).stalenessWindow == .seconds(12))
    }

    @Test func healthIsHealthyWithinTheWindow() {
        let success = Date(timeIntervalSince1970: 1000)
        let health = CollectorHealth(lastFinished: success, lastSuccess: success)
        #expect(health.isHealthy(sinceLastSuccess: .seconds(15), stalenessWindow: .seconds(15)))
        #expect(!health.isHealthy(sinceLastSuccess: .milliseconds(15_500), stalenessWindow: .seconds(15)))
        #expect(!health.isHealthy(sinceLastSuccess: nil, stalenessWindow: .seconds(15)))
        var failed = health
        failed.lastError = "network: refused"
        #expect(!failed.isHealthy(sinceLastSuccess: .zero, stalenessWindow: .seconds(15)))
        #expect(!CollectorHealth().isHealthy(sinceLastSuccess: nil, stalenessWindow: .seconds(15)))
    }

    /// Freshness follows the monotonic clock: however the wall clock is stepped, the age of the
    /// last success is the monotonic time since that readout.
    @Test func freshnessIgnoresWallClockSteps() async throws {
        let wall = Mutex(Date(timeIntervalSince1970: 1_760_000_000))
        let clock = ManualClock()
        let meter = try EnergyMeter.open(store: InMemoryEnergyStore(), clock: clock, logger: .disabled)
        let collector = WinPowerCollector(configuration: CollectorConfiguration(target: "http://winpower.test:8081"),
                                  client: ClientStub([.success(.make())]), meter: meter, clock: clock,
                                  wallClock: WallClock { wall.withLock { $0 } }, logger: .disabled)
        await collector.collect()
        wall.withLock { $0 += 3600 }      // stepped forward an hour
        clock.advance(by: .seconds(4))
        #expect(collector.timeSinceLastSuccess() == .seconds(4))
        #expect(collector.health.isHealthy(sinceLastSuccess: collector.timeSinceLastSuccess(), stalenessWindow: .seconds(15)))
        wall.withLock { $0 -= 7200 }      // and back two hours
        clock.advance(by: .seconds(20))
        #expect(collector.timeSinceLastSuccess() == .seconds(24))
        #expect(!collector.health.isHealthy(sinceLastSuccess: collector.timeSinceLastSuccess(), stalenessWindow: .seconds(15)))
    }
}

/// A gzip member of `bytes`, made the way a server would make its per-scrape part.
func gzipOf(_ bytes: [UInt8]) -> [UInt8] {
    // The collector's own compressor is internal; a snapshot of a fixed body yields one.
    MetricsSnapshot.gzipMember(of: bytes)
}
