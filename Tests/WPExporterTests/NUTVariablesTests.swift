import Testing
import WPTestThreads
import WPClient
import WPSNMP
@testable import WPExporter

@Suite(.ownThreads, .timeLimit(.minutes(3))) struct NUTVariablesTests {
    static func device(mode: Int?, charge: Double? = 100, runtime: Double? = 3600, charging: Int? = 0,
                       status: Int? = 1, alarms: ActiveAlarms? = nil) -> Device {
        var realtime = RealtimeReadings()
        realtime.mode = mode
        realtime.batCapacity = charge
        realtime.batRemainTime = runtime
        realtime.isCharging = charging
        realtime.status = status
        realtime.inputVolt1 = 230.5
        realtime.loadTotalWatt = 1200
        return Device(asset: AssetDevice(id: "ups-1", model: "Santak C3K", alias: "Rack A"), connected: true,
                      realtime: realtime, activeAlarms: alarms)
    }

    static func status(_ device: Device, _ thresholds: NUTThresholds = NUTThresholds()) -> String {
        NUTVariables.status(of: device, thresholds: thresholds).joined(separator: " ")
    }

    /// `OB` only for an outage; a self-test is on mains (`OL TEST`), so no upsmon shuts down.
    @Test func statusFollowsTheOperatingMode() {
        #expect(Self.status(Self.device(mode: 3)) == "OL")
        #expect(Self.status(Self.device(mode: 3, charging: 1)) == "OL CHRG")
        #expect(Self.status(Self.device(mode: 4)) == "OB DISCHRG")
        #expect(Self.status(Self.device(mode: 5)) == "OL TEST DISCHRG")
        #expect(!Self.status(Self.device(mode: 5, charge: 5)).contains("OB"), "a self-test is never on battery for upsmon")
        #expect(Self.status(Self.device(mode: 2)) == "OL BYPASS")
        #expect(Self.status(Self.device(mode: 1)) == "OL OFF")
        #expect(Self.status(Self.device(mode: 6)) == "ALARM")
        #expect(Self.status(Self.device(mode: nil)) == "ALARM", "a missing mode is neither OL nor OB")
        #expect(Self.status(Self.device(mode: 99, charging: 1)) == "ALARM CHRG", "an unknown mode says ALARM, not CHRG alone")
        #expect(Self.status(Self.device(mode: 3, status: 2)) == "ALARM OL")
        #expect(Self.status(Self.device(mode: 3, alarms: ActiveAlarms(count: 1, codes: ["501"]))) == "ALARM OL")
    }

    /// `LB` below either threshold, not at it; thresholds are per UPS.
    @Test func lowBatteryByChargeOrRuntime() {
        #expect(Self.status(Self.device(mode: 4, charge: 9.9)) == "OB DISCHRG LB")
        #expect(Self.status(Self.device(mode: 4, charge: 10)) == "OB DISCHRG")
        #expect(Self.status(Self.device(mode: 4, runtime: 119)) == "OB DISCHRG LB")
        #expect(Self.status(Self.device(mode: 4, charge: 30), NUTThresholds(chargeLow: 40, runtimeLow: 60)) == "OB DISCHRG LB")
        #expect(Self.status(Self.device(mode: 4, charge: nil, runtime: nil)) == "OB DISCHRG", "unknown is not low")
    }

    /// WinPower's own battery flag (UPS-MIB numbering: 3 low, 4 depleted) sets `LB` without a
    /// plausible charge or runtime; normal (2) or another code sets nothing. SNMP agrees.
    @Test func winPowersOwnLowBatteryFlagSetsLB() {
        func device(batteryStatus: Int?, charge: Double? = nil, runtime: Double? = nil) -> Device {
            var device = Self.device(mode: 4, charge: charge, runtime: runtime)
            device.realtime.batteryStatus = batteryStatus
            return device
        }
        #expect(Self.status(device(batteryStatus: 3)) == "OB DISCHRG LB")
        #expect(Self.status(device(batteryStatus: 4)) == "OB DISCHRG LB")
        #expect(Self.status(device(batteryStatus: 2)) == "OB DISCHRG")
        #expect(Self.status(device(batteryStatus: 7)) == "OB DISCHRG", "an unknown code says nothing")
        #expect(Self.status(device(batteryStatus: 2, charge: 80, runtime: 3600)) == "OB DISCHRG")
        func snmp(_ device: Device) -> (UPSMIB.BatteryStatus?, Bool) {
            let ups = UPSMIBMapping.values(of: device, name: "rack-a", agentVersion: "1.0", lowBatteryTime: 120)
            return (ups.batteryStatus, ups.alarms.contains { $0.alarm == .lowBattery })
        }
        #expect(snmp(device(batteryStatus: 3)) == (.batteryLow, true))
        #expect(snmp(device(batteryStatus: 4)) == (.batteryDepleted, true))
        #expect(snmp(device(batteryStatus: 2, charge: 80)) == (.batteryNormal, false))
        #expect(snmp(device(batteryStatus: nil)) == (nil, false))
    }

    /// Missing readings are absent, never 0; numbers as drivers write them.
    @Test func variablesHaveStandardNamesAndOnlyKnownReadings() {
        var device = Self.device(mode: 3)
        device.realtime.batVoltP = nil
        let variables = Dictionary(uniqueKeysWithValues: NUTVariables.of(device, thresholds: NUTThresholds(), driverVersion: "1.2.3")
            .map { ($0.name, $0.value) })
        #expect(variables["input.voltage"] == "230.5")
        #expect(variables["ups.realpower"] == "1200")
        #expect(variables["battery.charge"] == "100")
        #expect(variables["battery.charge.low"] == "10")
        #expect(variables["battery.runtime.low"] == "120")
        #expect(variables["ups.status"] == "OL")
        #expect(variables["device.model"] == "Santak C3K")
        #expect(variables["driver.name"] == "wpexporter")
        #expect(variables["driver.version"] == "1.2.3")
        #expect(variables["battery.voltage"] == nil)
        #expect(variables["output.current"] == nil)
        let names = NUTVariables.of(device, thresholds: NUTThresholds(), driverVersion: "1").map(\.name)
        #expect(names == names.sorted())
    }

    @Test func numbersAreFormattedAsDriversDo() {
        #expect(NUTVariables.format(230) == "230")
        #expect(NUTVariables.format(49.95) == "49.95")
        #expect(NUTVariables.format(-3) == "-3")
        #expect(NUTVariables.format(0.1) == "0.1")
    }
}
