import Testing
import WPTestThreads
@testable import WPSNMP

/// RFC 1628's object list (the UPS-MIB module's OBJECT-TYPEs: name, OID, SYNTAX's base type,
/// MAX-ACCESS) and RFC 3418's system group, as `snmptranslate -On` would name them. Every
/// instance the agent serves must be an instance of a listed, readable object with the type its
/// SYNTAX gives: a scalar's instance ends in `.0`, a column's in its row index.
enum RFC1628 {
    enum Syntax { case integer, gauge32, counter32, timeTicks, octetString, objectIdentifier }
    enum Kind { case scalar, column }

    struct Object {
        var name: String
        var oid: OID
        var syntax: Syntax
        var access: String
        var kind: Kind
    }

    static func scalar(_ name: String, _ oid: OID, _ syntax: Syntax, _ access: String = "read-only") -> Object {
        Object(name: name, oid: oid, syntax: syntax, access: access, kind: .scalar)
    }

    static func column(_ name: String, _ oid: OID, _ syntax: Syntax, _ access: String = "read-only") -> Object {
        Object(name: name, oid: oid, syntax: syntax, access: access, kind: .column)
    }

    /// NonNegativeInteger, PositiveInteger, Integer32 and enumerations are INTEGER; TimeStamp
    /// is TimeTicks; TimeInterval is INTEGER; DisplayString is OCTET STRING; AutonomousType is
    /// OBJECT IDENTIFIER.
    static let objects: [Object] = [
        scalar("sysDescr", "1.3.6.1.2.1.1.1", .octetString), scalar("sysObjectID", "1.3.6.1.2.1.1.2", .objectIdentifier),
        scalar("sysUpTime", "1.3.6.1.2.1.1.3", .timeTicks), scalar("sysContact", "1.3.6.1.2.1.1.4", .octetString, "read-write"),
        scalar("sysName", "1.3.6.1.2.1.1.5", .octetString, "read-write"), scalar("sysLocation", "1.3.6.1.2.1.1.6", .octetString, "read-write"),
        scalar("sysServices", "1.3.6.1.2.1.1.7", .integer),
        scalar("upsIdentManufacturer", "1.3.6.1.2.1.33.1.1.1", .octetString), scalar("upsIdentModel", "1.3.6.1.2.1.33.1.1.2", .octetString),
        scalar("upsIdentUPSSoftwareVersion", "1.3.6.1.2.1.33.1.1.3", .octetString),
        scalar("upsIdentAgentSoftwareVersion", "1.3.6.1.2.1.33.1.1.4", .octetString),
        scalar("upsIdentName", "1.3.6.1.2.1.33.1.1.5", .octetString, "read-write"),
        scalar("upsIdentAttachedDevices", "1.3.6.1.2.1.33.1.1.6", .octetString, "read-write"),
        scalar("upsBatteryStatus", "1.3.6.1.2.1.33.1.2.1", .integer), scalar("upsSecondsOnBattery", "1.3.6.1.2.1.33.1.2.2", .integer),
        scalar("upsEstimatedMinutesRemaining", "1.3.6.1.2.1.33.1.2.3", .integer),
        scalar("upsEstimatedChargeRemaining", "1.3.6.1.2.1.33.1.2.4", .integer),
        scalar("upsBatteryVoltage", "1.3.6.1.2.1.33.1.2.5", .integer), scalar("upsBatteryCurrent", "1.3.6.1.2.1.33.1.2.6", .integer),
        scalar("upsBatteryTemperature", "1.3.6.1.2.1.33.1.2.7", .integer),
        scalar("upsInputLineBads", "1.3.6.1.2.1.33.1.3.1", .counter32), scalar("upsInputNumLines", "1.3.6.1.2.1.33.1.3.2", .integer),
        column("upsInputFrequency", "1.3.6.1.2.1.33.1.3.3.1.2", .integer), column("upsInputVoltage", "1.3.6.1.2.1.33.1.3.3.1.3", .integer),
        column("upsInputCurrent", "1.3.6.1.2.1.33.1.3.3.1.4", .integer), column("upsInputTruePower", "1.3.6.1.2.1.33.1.3.3.1.5", .integer),
        scalar("upsOutputSource", "1.3.6.1.2.1.33.1.4.1", .integer), scalar("upsOutputFrequency", "1.3.6.1.2.1.33.1.4.2", .integer),
        scalar("upsOutputNumLines", "1.3.6.1.2.1.33.1.4.3", .integer),
        column("upsOutputVoltage", "1.3.6.1.2.1.33.1.4.4.1.2", .integer), column("upsOutputCurrent", "1.3.6.1.2.1.33.1.4.4.1.3", .integer),
        column("upsOutputPower", "1.3.6.1.2.1.33.1.4.4.1.4", .integer), column("upsOutputPercentLoad", "1.3.6.1.2.1.33.1.4.4.1.5", .integer),
        scalar("upsBypassFrequency", "1.3.6.1.2.1.33.1.5.1", .integer), scalar("upsBypassNumLines", "1.3.6.1.2.1.33.1.5.2", .integer),
        column("upsBypassVoltage", "1.3.6.1.2.1.33.1.5.3.1.2", .integer), column("upsBypassCurrent", "1.3.6.1.2.1.33.1.5.3.1.3", .integer),
        column("upsBypassPower", "1.3.6.1.2.1.33.1.5.3.1.4", .integer),
        scalar("upsAlarmsPresent", "1.3.6.1.2.1.33.1.6.1", .gauge32),
        column("upsAlarmDescr", "1.3.6.1.2.1.33.1.6.2.1.2", .objectIdentifier), column("upsAlarmTime", "1.3.6.1.2.1.33.1.6.2.1.3", .timeTicks),
        scalar("upsTestId", "1.3.6.1.2.1.33.1.7.1", .objectIdentifier, "read-write"),
        scalar("upsTestSpinLock", "1.3.6.1.2.1.33.1.7.2", .integer, "read-write"),
        scalar("upsTestResultsSummary", "1.3.6.1.2.1.33.1.7.3", .integer), scalar("upsTestResultsDetail", "1.3.6.1.2.1.33.1.7.4", .octetString),
        scalar("upsTestStartTime", "1.3.6.1.2.1.33.1.7.5", .timeTicks), scalar("upsTestElapsedTime", "1.3.6.1.2.1.33.1.7.6", .integer),
        scalar("upsShutdownType", "1.3.6.1.2.1.33.1.8.1", .integer, "read-write"),
        scalar("upsConfigInputVoltage", "1.3.6.1.2.1.33.1.9.1", .integer, "read-write"),
        scalar("upsConfigInputFreq", "1.3.6.1.2.1.33.1.9.2", .integer, "read-write"),
        scalar("upsConfigOutputVoltage", "1.3.6.1.2.1.33.1.9.3", .integer, "read-write"),
        scalar("upsConfigOutputFreq", "1.3.6.1.2.1.33.1.9.4", .integer, "read-write"),
        scalar("upsConfigOutputVA", "1.3.6.1.2.1.33.1.9.5", .integer), scalar("upsConfigOutputPower", "1.3.6.1.2.1.33.1.9.6", .integer),
        scalar("upsConfigLowBattTime", "1.3.6.1.2.1.33.1.9.7", .integer, "read-write"),
    ]

    /// The listed object `oid` is an instance of, with its index.
    static func object(of oid: OID) -> (Object, [UInt32])? {
        for object in objects where oid.isPrefixed(by: object.oid) {
            return (object, Array(oid.components.dropFirst(object.oid.components.count)))
        }
        return nil
    }

    static func matches(_ value: SNMPValue, _ syntax: Syntax) -> Bool {
        switch (value, syntax) {
        case (.integer, .integer), (.gauge32, .gauge32), (.counter32, .counter32), (.timeTicks, .timeTicks),
             (.octetString, .octetString), (.objectIdentifier, .objectIdentifier): true
        default: false
        }
    }
}

@Suite(.ownThreads, .timeLimit(.minutes(2))) struct RFC1628ObjectTests {
    /// A UPS with every reading the mapping can give: three phases, a bypass, alarms, a test.
    static func everything() -> MIBTable {
        var ups = UPSMIBValues()
        (ups.manufacturer, ups.model, ups.upsSoftwareVersion, ups.agentSoftwareVersion, ups.name, ups.attachedDevices) =
            ("ACME", "C3K", "03.09", "wpexporter", "rack-a", "servers")
        (ups.batteryStatus, ups.secondsOnBattery, ups.runtimeRemaining, ups.estimatedChargeRemaining) = (.batteryNormal, 0, 1_800, 97)
        (ups.batteryVoltage, ups.batteryCurrent, ups.batteryTemperature, ups.inputLineBads) = (81.4, -1.2, 27, 3)
        ups.inputLines = (1...3).map { _ in .init(frequency: 50, voltage: 230, current: 4.2, truePower: 900) }
        ups.outputSource = .normal
        ups.outputFrequency = 50
        ups.outputLines = (1...3).map { _ in .init(voltage: 230, current: 4, power: 880, percentLoad: 30) }
        ups.bypassFrequency = 50
        ups.bypassLines = (1...3).map { _ in .init(voltage: 229, current: 0.1, power: 0) }
        ups.alarms = [.init(id: 1, alarm: .onBypass, time: 12), .init(id: 2, alarm: .fanFailure)]
        (ups.testID, ups.testResult, ups.testResultDetail, ups.testStartTime, ups.testElapsedTime) =
            (.quickBatteryTest, .donePass, "ok", 100, 1_500)
        (ups.nominalInputVoltage, ups.nominalInputFrequency, ups.nominalOutputVoltage, ups.nominalOutputFrequency) = (230, 50, 230, 50)
        (ups.nominalOutputVA, ups.nominalOutputPower, ups.lowBatteryTime) = (3_000, 2_700, 300)
        var builder = MIBBuilder()
        SystemGroup(description: "wpexporter", name: "rack-a").add(to: &builder)
        ups.add(to: &builder)
        return builder.build()
    }

    @Test func everyInstanceIsAReadableObjectOfRFC1628WithItsSyntax() {
        let view = Self.everything()
        #expect(view.instances.count > 60)
        var named: Set<String> = []
        for instance in view.instances {
            guard let (object, index) = RFC1628.object(of: instance.oid) else {
                Issue.record("\(instance.oid) is no object of RFC 1628 or the system group")
                continue
            }
            named.insert(object.name)
            #expect(RFC1628.matches(instance.value, object.syntax), "\(object.name): \(instance.value) is not \(object.syntax)")
            #expect(object.access != "not-accessible", "\(object.name)")
            switch object.kind {
            case .scalar: #expect(index == [0], "\(object.name).\(index)")
            case .column: #expect(index.count == 1 && index[0] >= 1, "\(object.name).\(index)")
            }
        }
        // Every group the RFC requires of a UPS agent is there (upsIdent, upsBattery, upsInput,
        // upsOutput, upsAlarm, upsConfig basics).
        for required in ["upsIdentModel", "upsBatteryStatus", "upsEstimatedChargeRemaining", "upsInputNumLines", "upsInputVoltage",
                         "upsOutputSource", "upsOutputNumLines", "upsOutputVoltage", "upsAlarmsPresent", "upsConfigLowBattTime",
                         "upsTestResultsSummary", "upsBypassVoltage", "sysUpTime"] {
            #expect(named.contains(required), "\(required) is not served")
        }
    }
}
