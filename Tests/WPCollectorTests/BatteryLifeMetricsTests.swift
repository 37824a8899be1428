import Testing
import WPTestThreads
import WPClient
import WPCollector
import WPSimulator
import WPTestSupport

/// A configured battery (``Device/battery``, set by ``DeviceFilter``) on `/metrics`: its
/// installation day, its age at the collection and its replace-by day, only for UPSs that have one.
@Suite(.ownThreads, .timeLimit(.minutes(3))) struct BatteryLifeMetricsTests {
    @Test func installedAgeAndReplaceByForEachUPSWithABattery() async throws {
        let simulated = (0..<3).map(SimulatedDevice.init(index:))
        var filter = DeviceFilter(exclude: [simulated[2].id])
        filter.battery = BatteryLife(installed: "2024-03-01")                             // every device: 4 years
        #expect(filter.battery != nil)
        filter.batteries = [simulated[1].id: try #require(BatteryLife(installed: "2023-01-31", life: "1y1mo"))]
        let (_, fixture) = try DeviceFilterTests.fixture(filter, devices: 3)
        await fixture.collector.collect()
        let exposition = try fixture.exposition()
        func value(_ name: String, _ index: Int) -> Double? {
            exposition.samples(name, ["device_id": simulated[index].id]).first?.value
        }
        #expect(value("winpower_device_battery_installed_timestamp_seconds", 0) == 1_709_251_200)  // 2024-03-01
        #expect(value("winpower_device_battery_replace_by_timestamp_seconds", 0) == 1_835_481_600) // 2028-03-01
        #expect(value("winpower_device_battery_installed_timestamp_seconds", 1) == 1_675_123_200)  // 2023-01-31
        // 2023-01-31 + 1 year 1 month: February 2024 has no 31st, so its last day.
        #expect(value("winpower_device_battery_replace_by_timestamp_seconds", 1) == 1_709_164_800) // 2024-02-29
        let now = try #require(exposition.value("winpower_exporter_last_collection_timestamp_seconds"))
        let age = try #require(value("winpower_device_battery_age_seconds", 0))
        #expect(abs(age - (now - 1_709_251_200)) <= 1)
        #expect(value("winpower_device_battery_age_seconds", 2) == nil, "an excluded device has none")
    }

    @Test func aFleetWithoutBatteriesRendersNoBatteryFamily() async throws {
        let (_, fixture) = try DeviceFilterTests.fixture(.all, devices: 2)
        await fixture.collector.collect()
        let families = try fixture.exposition().familyOrder
        #expect(families.contains("winpower_device_battery_capacity"))
        #expect(!families.contains { $0.hasPrefix("winpower_device_battery_installed") || $0.hasPrefix("winpower_device_battery_age")
            || $0.hasPrefix("winpower_device_battery_replace_by") })
    }

    @Test func batteryDaysAndLivesReadOnlyWhatTheySay() {
        #expect(BatteryLife(installed: "2024-02-30") == nil)
        #expect(BatteryLife(installed: "24-03-01") == nil)
        #expect(BatteryLife(installed: nil, life: "0y") == nil)
        #expect(BatteryLife(installed: nil, life: "4 years") == nil)
        #expect(BatteryLife(installed: nil, life: "6mo1y") == nil, "units in order: y, mo, d")
        #expect(BatteryLife(installed: nil, life: "101y") == nil)
        let leap = BatteryLife(installed: "2024-02-29", life: "1y")
        #expect(leap?.replaceBy == "2025-02-28")
        #expect(BatteryLife(installed: "2024-03-01", life: "1460d")?.replaceBy == "2028-02-29")
        #expect(BatteryLife(installed: "2024-11-30", life: "3mo")?.replaceBy == "2025-02-28")
        #expect(BatteryLife(installed: nil, life: "3y6mo")?.replaceBy == nil)
        #expect(BatteryLife(installed: nil, life: "3y6mo")?.life == "3y6mo")
    }
}
