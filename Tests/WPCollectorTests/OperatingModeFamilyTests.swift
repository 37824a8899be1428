import Foundation
import Testing
import WPTestThreads
import WPClient
import WPCollector
import WPTestSupport

/// Operating modes as series a person and an alert read without a code table; alarm series
/// bounded per device.
@Suite(.ownThreads, .timeLimit(.minutes(3))) struct OperatingModeFamilyTests {
    static func exposition(_ devices: [Device]) async throws -> CollectorExposition {
        let fixture = try CollectorFixture(client: ClientStub([.success(.make(devices: devices))]))
        await fixture.collector.collect()
        return try fixture.exposition()
    }

    static func id(_ code: Int) -> String { "0b0c4d6e-00\(code)0-4b35-b0dd-000000000000" }

    @Test func everyKnownModeGivesOneSeriesPerModeAndTheDerivedFlags() async throws {
        let exposition = try await Self.exposition(OperatingMode.allCases.map { .make(id: Self.id($0.code), mode: $0.code) })
        for mode in OperatingMode.allCases {
            let device = ["device_id": Self.id(mode.code)]
            for state in OperatingMode.allCases {
                #expect(exposition.value("winpower_device_operating_mode", device.merging(["mode": state.label]) { $1 })
                        == (state == mode ? 1 : 0), "\(mode) / \(state)")
            }
            #expect(exposition.value("winpower_device_mode", device) == Double(mode.code))
            #expect(exposition.value("winpower_device_on_battery", device) == (mode == .battery ? 1 : 0), "\(mode)")
            #expect(exposition.value("winpower_device_battery_test_running", device) == (mode == .batteryTest ? 1 : 0))
            #expect(exposition.value("winpower_device_on_bypass", device) == (mode == .bypass ? 1 : 0))
            #expect(exposition.value("winpower_device_fault", device) == (mode == .fault ? 1 : 0), "\(mode)")
        }
    }

    @Test func unknownOrMissingModeStaysRawAndIsNeverGuessed() async throws {
        let exposition = try await Self.exposition([.make(id: Self.id(9), mode: 9), .make(id: Self.id(8), mode: nil)])
        let unknown = ["device_id": Self.id(9)]
        #expect(exposition.value("winpower_device_mode", unknown) == 9)
        #expect(exposition.samples("winpower_device_operating_mode").isEmpty)
        for name in ["winpower_device_on_battery", "winpower_device_battery_test_running", "winpower_device_on_bypass"] {
            #expect(exposition.samples(name).isEmpty, "\(name)")
        }
        #expect(exposition.value("winpower_device_mode", ["device_id": Self.id(8)]) == nil)
    }

    @Test func alarmSeriesAreBoundedAndTheExcessCounted() async throws {
        let codes = (0..<20).map { "0x\(String($0 + 0x100, radix: 16))" } + ["0x0100", "", String(repeating: "A", count: 33)]
        let exposition = try await Self.exposition([.make(alarmCodes: codes + ["0x0100"])])
        let series = exposition.samples("winpower_device_active_alarm")
        #expect(series.count == 16)
        #expect(series.compactMap { $0.labels["alarm_code"] } == Array(Set(codes).filter { !$0.isEmpty && $0.count <= 32 }.sorted().prefix(16)))
        // 21 distinct usable codes (a repeat counts once) and 2 unusable ones: 16 exported, 7 counted.
        #expect(exposition.value("winpower_device_alarm_codes_dropped") == 7)
    }
}

/// What is exported before the first successful login, as docs/metrics.md states it.
@Suite(.ownThreads, .timeLimit(.minutes(3))) struct SeedFamiliesBeforeLoginTests {
    static let present: [String: Double] = [
        "winpower_exporter_up": 0, "winpower_exporter_device_count": 0, "winpower_exporter_last_collection_success": 0,
        "winpower_exporter_collections_skipped_total": 0, "winpower_exporter_energy_state_reset": 0,
        "winpower_exporter_energy_persist_failures_total": 0, "winpower_auth_status": 0,
        "winpower_token_expiry_seconds": 0,
    ]

    @Test func seedFamiliesArePresentBeforeAnyLoginAndAfterARejectedOne() async throws {
        let fixture = try CollectorFixture(client: ClientStub([.failure(ClientError(.auth, "login rejected"))]))
        let before = try fixture.exposition()
        for (name, value) in Self.present {
            #expect(before.value(name) == value, "\(name) before any collection")
        }
        #expect(before.value("winpower_exporter_last_collection_timestamp_seconds") == nil)
        await fixture.collector.collect()
        let rejected = try fixture.exposition()
        for (name, value) in Self.present {
            #expect(rejected.value(name) == value, "\(name) after a rejected login")
        }
        #expect(rejected.value("winpower_exporter_scrape_errors_total", ["error_type": "auth"]) == 1)
        #expect(rejected.value("winpower_exporter_last_collection_timestamp_seconds") != nil)
        #expect(rejected.samples("winpower_device_operating_mode").isEmpty)
    }
}
