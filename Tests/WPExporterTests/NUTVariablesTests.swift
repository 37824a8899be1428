import Testing
import WPTestThreads
import WPClient
import WPNUT
import WPSNMP
import WPNUTFrontEnd
@testable import WPSNMPFrontEnd

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
        #expect(variables["battery.date"] == nil && variables["battery.date.maintenance"] == nil, "no battery configured")
    }

    /// The configured battery as upsd names it: installed (`battery.date`) and due for
    /// replacement (`battery.date.maintenance`), as YYYY-MM-DD.
    @Test func aConfiguredBatteryHasItsDates() {
        var device = Self.device(mode: 3)
        device.battery = BatteryLife(installed: "2024-03-01", life: "3y6mo")
        let variables = Dictionary(uniqueKeysWithValues: NUTVariables.of(device, thresholds: NUTThresholds(), driverVersion: "1")
            .map { ($0.name, $0.value) })
        #expect(variables["battery.date"] == "2024-03-01")
        #expect(variables["battery.date.maintenance"] == "2027-09-01")
        device.battery = BatteryLife(installed: nil, life: "5y")
        let lifeOnly = NUTVariables.of(device, thresholds: NUTThresholds(), driverVersion: "1").map(\.name)
        #expect(!lifeOnly.contains("battery.date") && !lifeOnly.contains("battery.date.maintenance"))
    }

    /// A battery whose measured health is low: NUT's `RB` after the other words (as a UPS that
    /// says "replace battery"), SNMP's `upsAlarmBatteryBad` in the alarm table; neither otherwise.
    @Test func aLowMeasuredHealthAsksForANewBattery() {
        let device = Self.device(mode: 3)
        func status(_ replace: Bool) -> String? {
            NUTVariables.of(device, thresholds: NUTThresholds(), driverVersion: "1", replaceBattery: replace)
                .first { $0.name == "ups.status" }?.value
        }
        #expect(status(false) == "OL")
        #expect(status(true) == "OL RB")
        let onBattery = NUTVariables.of(Self.device(mode: 4, charge: 5), thresholds: NUTThresholds(), driverVersion: "1",
                                        replaceBattery: true).first { $0.name == "ups.status" }?.value
        #expect(onBattery == "OB DISCHRG LB RB")
        let bad = UPSMIBMapping.values(of: device, name: "rack-a", agentVersion: "1.0", lowBatteryTime: 120, replaceBattery: true)
        #expect(bad.alarms.map(\.alarm) == [.batteryBad])
        let good = UPSMIBMapping.values(of: device, name: "rack-a", agentVersion: "1.0", lowBatteryTime: 120)
        #expect(good.alarms.isEmpty)
    }

    /// A three-phase UPS with every line's readings: WinPower's one frequency on every input
    /// line, each output line's load its apparent power over its share of the rating.
    static func threePhase(lineVA: [Double]?) -> Device {
        var device = device(mode: 3)
        device.config.inputPhaseNumber = 3
        device.config.outputPhaseNumber = 3
        device.config.ratingVa = 6000
        device.realtime.inputFreq = 49.9
        device.realtime.loadPercent = 40
        // Phase 1 of these has a field of its own (set below); inputCurrent1 does not.
        for phase in 1...3 {
            device.realtime.phases[.inputVolt, phase] = 229 + Double(phase)
            device.realtime.phases[.inputCurrent, phase] = 3 + Double(phase)
            device.realtime.phases[.outputVolt, phase] = 229 + Double(phase)
            device.realtime.phases[.loadWatt, phase] = 500 * Double(phase)
        }
        device.realtime.inputVolt1 = 230
        device.realtime.outputVolt1 = 230
        device.realtime.loadWatt1 = 500
        if let lineVA {
            device.realtime.loadVa1 = lineVA[0]
            device.realtime.phases[.loadVa, 2] = lineVA[1]
            device.realtime.phases[.loadVa, 3] = lineVA[2]
        }
        return device
    }

    @Test func threePhaseLinesInTheUPSMIB() {
        let ups = UPSMIBMapping.values(of: Self.threePhase(lineVA: [500, 1000, 1500]), name: "rack-a", agentVersion: "1.0", lowBatteryTime: 120)
        #expect(ups.inputLines.map(\.frequency) == [49.9, 49.9, 49.9], "one supply, one frequency on every line")
        #expect(ups.inputLines.map(\.voltage) == [230, 231, 232])
        #expect(ups.outputLines.map(\.percentLoad) == [25, 50, 75], "each line's VA over 2000 VA, its third of the rating")
        #expect(ups.outputLines.map(\.power) == [500, 1000, 1500])
        // A line without its apparent power: every line carries the UPS's load, none a mix.
        let partial = UPSMIBMapping.values(of: Self.threePhase(lineVA: nil), name: "rack-a", agentVersion: "1.0", lowBatteryTime: 120)
        #expect(partial.outputLines.map(\.percentLoad) == [40, 40, 40])
        var single = Self.device(mode: 3)
        single.realtime.loadPercent = 33
        single.realtime.inputFreq = 50
        let one = UPSMIBMapping.values(of: single, name: "rack-a", agentVersion: "1.0", lowBatteryTime: 120)
        #expect(one.outputLines.map(\.percentLoad) == [33] && one.inputLines.map(\.frequency) == [50])
    }

    @Test func threePhaseVariablesHaveNUTsPhaseNames() {
        let variables = Dictionary(uniqueKeysWithValues: NUTVariables.of(Self.threePhase(lineVA: [500, 1000, 1500]), thresholds: NUTThresholds(),
                                                                         driverVersion: "1").map { ($0.name, $0.value) })
        #expect(variables["input.phases"] == "3" && variables["output.phases"] == "3")
        #expect(variables["input.L2-N.voltage"] == "231" && variables["input.L3.current"] == "6")
        #expect(variables["output.L1-N.voltage"] == "230" && variables["output.L3-N.voltage"] == "232")
        #expect(variables["output.L2.realpower"] == "1000" && variables["output.L3.power"] == "1500")
        #expect(variables["output.L1.power.percent"] == "25" && variables["output.L3.power.percent"] == "75")
        #expect(variables["ups.load"] == "40", "the UPS's own load stays ups.load")
        #expect(variables["input.frequency"] == "49.9")
        #expect(variables["output.L1.current"] == nil, "not reported, not invented")
        let single = NUTVariables.of(Self.device(mode: 3), thresholds: NUTThresholds(), driverVersion: "1").map(\.name)
        #expect(!single.contains { $0.contains(".L1") || $0.hasSuffix(".phases") }, "a single-phase UPS has no phase names, as drivers publish")
        for name in variables.keys where name.contains(".L") || name.hasSuffix(".phases") {
            #expect(NUTDescriptions.description(of: name) != "Description unavailable", "\(name)")
        }
    }

    /// WinPower's one temperature, `upsTemperature`, is the UPS's: `ups.temperature` in NUT (as
    /// the Q1/Voltronic drivers for Santak publish it), and the UPS-MIB's only temperature object.
    @Test func theUPSTemperatureIsOneReadingInBothProtocols() {
        var device = Self.device(mode: 3)
        device.realtime.upsTemperature = 31.5
        let variables = Dictionary(uniqueKeysWithValues: NUTVariables.of(device, thresholds: NUTThresholds(), driverVersion: "1")
            .map { ($0.name, $0.value) })
        #expect(variables["ups.temperature"] == "31.5")
        #expect(variables["battery.temperature"] == nil, "WinPower measures no battery temperature")
        #expect(UPSMIBMapping.values(of: device, name: "rack-a", agentVersion: "1.0", lowBatteryTime: 120).batteryTemperature == 31.5)
    }

    @Test func numbersAreFormattedAsDriversDo() {
        #expect(NUTVariables.format(230) == "230")
        #expect(NUTVariables.format(49.95) == "49.95")
        #expect(NUTVariables.format(-3) == "-3")
        #expect(NUTVariables.format(0.1) == "0.1")
    }
}
