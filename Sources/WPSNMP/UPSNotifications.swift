extension UPSMIB {
    /// The UPS-MIB's notifications (RFC 1628 `upsTraps`, `mib-2.33.2`).
    package enum Traps {
        package static let group = upsMIB.appending(2)
        /// `upsTrapOnBattery`: on battery; resent every minute while it lasts.
        package static let onBattery = group.appending(1)
        /// `upsTrapTestCompleted`: a self-test finished.
        package static let testCompleted = group.appending(2)
        /// `upsTrapAlarmEntryAdded`: a row appeared in the alarm table.
        package static let alarmEntryAdded = group.appending(3)
        /// `upsTrapAlarmEntryRemoved`: a row left the alarm table.
        package static let alarmEntryRemoved = group.appending(4)
    }
}

/// One notification: its `snmpTrapOID` and the objects it carries.
package struct SNMPNotification: Sendable, Equatable {
    /// `sysUpTime.0`, the first binding of every notification (RFC 3416 §4.2.6).
    package static let sysUpTimeInstance: OID = "1.3.6.1.2.1.1.3.0"
    /// `snmpTrapOID.0`, the second.
    package static let snmpTrapOIDInstance: OID = "1.3.6.1.6.3.1.1.4.1.0"

    package var trap: OID
    package var varBinds: [VarBind]
    /// The UPS it is about, when the agent serves several: the SNMPv3 context name its
    /// SNMPv3 traps carry (the one a manager selects the UPS with); empty for the default.
    package var context: String

    package init(trap: OID, varBinds: [VarBind], context: String = "") {
        self.trap = trap
        self.varBinds = varBinds
        self.context = context
    }

    /// The notification about the UPS `name` of an agent serving several: its context, and
    /// `upsIdentName.0` = `name` after the objects RFC 1628 lists (RFC 3416 §4.2.6 allows
    /// more bindings than the OBJECTS clause), so a receiver can tell the UPSs apart.
    package func about(ups name: String) -> SNMPNotification {
        SNMPNotification(trap: trap, varBinds: varBinds + [VarBind(UPSMIB.Ident.name.appending(0), SNMPValue.displayString(name, maxBytes: 63))],
                         context: name)
    }

    /// The SNMPv2-Trap (or InformRequest) PDU: `sysUpTime.0`, `snmpTrapOID.0`, the objects.
    package func pdu(requestID: Int32, uptime: UInt32, type: UInt8 = BERTag.snmpV2Trap) -> PDU {
        PDU(type: type, requestID: requestID,
            varBinds: [VarBind(Self.sysUpTimeInstance, .timeTicks(uptime)), VarBind(Self.snmpTrapOIDInstance, .objectIdentifier(trap))]
                + varBinds)
    }
}

/// What changed in one UPS from one published reading to the next, as UPS-MIB notifications:
/// the switch to battery (`upsTrapOnBattery`, resent every ``onBatteryRepeat`` while on battery,
/// as RFC 1628 asks), a finished self-test (`upsTrapTestCompleted`), and each alarm row added
/// or removed (`upsTrapAlarmEntryAdded`/`Removed`, with its `upsAlarmId` and `upsAlarmDescr`).
/// The first reading only sets the baseline: a UPS already on battery when the agent starts
/// is notified at once, alarms present then are not.
///
/// ```swift
/// var notifier = UPSNotifier()
/// sender.send(notifier.update(values, now: clock.now - start))   // what changed since the last reading
/// ```
package struct UPSNotifier: Sendable {
    /// RFC 1628: `upsTrapOnBattery` "is resent at one minute intervals".
    package static let onBatteryRepeat: Duration = .seconds(60)

    private var last: UPSMIBValues?
    private var onBatterySent: Duration?

    package init() {}

    /// The notifications `values` calls for; `now` is any monotonic time (the agent's uptime).
    package mutating func update(_ values: UPSMIBValues, now: Duration) -> [SNMPNotification] {
        defer { last = values }
        var builder = MIBBuilder()
        values.add(to: &builder)
        let table = builder.build()
        func bindings(_ oids: [OID]) -> [VarBind] {
            oids.compactMap { oid in
                let value = table.get(oid)
                return value.isException ? nil : VarBind(oid, value)
            }
        }
        var notifications: [SNMPNotification] = []
        if values.outputSource == .battery {
            if onBatterySent.map({ now - $0 >= Self.onBatteryRepeat }) ?? true {
                onBatterySent = now
                notifications.append(SNMPNotification(trap: UPSMIB.Traps.onBattery, varBinds: bindings([
                    UPSMIB.Battery.estimatedMinutesRemaining.appending(0), UPSMIB.Battery.secondsOnBattery.appending(0),
                    UPSMIB.Config.lowBattTime.appending(0)])))
            }
        } else {
            onBatterySent = nil
        }
        guard let last else { return notifications }
        if last.testResult == .inProgress, let result = values.testResult, result != .inProgress {
            // `upsTestId` names the test that completed (the one in progress before), whatever
            // the agent answers for it now that none runs.
            let completed = (last.testID ?? values.testID).map { [VarBind(UPSMIB.Test.id.appending(0), .objectIdentifier($0.oid))] } ?? []
            notifications.append(SNMPNotification(trap: UPSMIB.Traps.testCompleted, varBinds: completed + bindings([
                UPSMIB.Test.resultsSummary.appending(0), UPSMIB.Test.resultsDetail.appending(0),
                UPSMIB.Test.startTime.appending(0), UPSMIB.Test.elapsedTime.appending(0)])))
        }
        let before = Dictionary(last.alarms.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        let after = Dictionary(values.alarms.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        for alarm in values.alarms where before[alarm.id]?.alarm != alarm.alarm {
            if let replaced = before[alarm.id] { notifications.append(Self.alarm(replaced, added: false)) }
            notifications.append(Self.alarm(alarm, added: true))
        }
        for alarm in last.alarms where after[alarm.id] == nil {
            notifications.append(Self.alarm(alarm, added: false))
        }
        return notifications
    }

    private static func alarm(_ alarm: UPSMIBValues.Alarm, added: Bool) -> SNMPNotification {
        SNMPNotification(trap: added ? UPSMIB.Traps.alarmEntryAdded : UPSMIB.Traps.alarmEntryRemoved, varBinds: [
            VarBind(UPSMIB.Alarm.entry.appending(1, alarm.id), .integer(Int32(clamping: alarm.id))),
            VarBind(UPSMIB.Alarm.descr.appending(alarm.id), .objectIdentifier(UPSMIB.Alarm.wellKnownAlarms.appending(alarm.alarm.rawValue))),
        ])
    }
}
