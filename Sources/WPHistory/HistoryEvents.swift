package import WPClient
import WPCollector
package import WPEnergy
package import WPFrontEnd
import FoundationEssentials

/// One entry of the event journal (`event` in `history.db`): when, which UPS or server, what
/// happened, and what it said.
package struct HistoryEvent: Sendable, Equatable {
    /// What happened. Most kinds come in pairs, a condition and its end (``pair``).
    package enum Kind: String, CaseIterable, Sendable {
        case onBattery = "on_battery", mainsBack = "mains_back"
        case lowBattery = "low_battery", lowBatteryCleared = "low_battery_cleared"
        case bypass, bypassEnded = "bypass_ended"
        case fault, faultCleared = "fault_cleared"
        case alarmRaised = "alarm_raised", alarmCleared = "alarm_cleared"
        case selfTestStarted = "self_test_started", selfTestFinished = "self_test_finished"
        case selfTestOverdue = "self_test_overdue", selfTestOverdueCleared = "self_test_overdue_cleared"
        case batteryHealthLow = "battery_health_low", batteryHealthRecovered = "battery_health_recovered"
        case disconnected, reconnected
        case stale, fresh
        case serverUnreachable = "server_unreachable", loginRefused = "login_refused", serverBack = "server_back"
        case exporterStarted = "exporter_started", exporterStopped = "exporter_stopped"
        case reloaded, configurationRefused = "configuration_refused"

        /// The kinds one condition alternates between (its start first), or `nil` for a
        /// kind that stands alone.
        package var pair: [Kind]? {
            switch self {
            case .onBattery, .mainsBack: [.onBattery, .mainsBack]
            case .lowBattery, .lowBatteryCleared: [.lowBattery, .lowBatteryCleared]
            case .bypass, .bypassEnded: [.bypass, .bypassEnded]
            case .fault, .faultCleared: [.fault, .faultCleared]
            case .alarmRaised, .alarmCleared: [.alarmRaised, .alarmCleared]
            case .selfTestStarted, .selfTestFinished: [.selfTestStarted, .selfTestFinished]
            case .selfTestOverdue, .selfTestOverdueCleared: [.selfTestOverdue, .selfTestOverdueCleared]
            case .batteryHealthLow, .batteryHealthRecovered: [.batteryHealthLow, .batteryHealthRecovered]
            case .disconnected, .reconnected: [.disconnected, .reconnected]
            case .stale, .fresh: [.stale, .fresh]
            case .serverUnreachable, .loginRefused, .serverBack: [.serverUnreachable, .loginRefused, .serverBack]
            case .exporterStarted, .exporterStopped, .reloaded, .configurationRefused: nil
            }
        }

        /// The exporter's own kinds, quoted for SQL: not a UPS's nor a server's.
        static var exporterKinds: String {
            [Kind.exporterStarted, .exporterStopped, .reloaded, .configurationRefused].map { "'\($0.rawValue)'" }.joined(separator: ", ")
        }

        /// Whether it ends a condition (the state a UPS or server is normally in).
        package var isNormal: Bool { pair.map { $0.last == self } ?? false }
    }

    /// Unix seconds.
    package var time: Int64
    /// The server's name (empty for a `winpower`-only configuration's, and for the exporter's events).
    package var server: String
    /// The UPS's `device_id`; `nil` for a server's or the exporter's event.
    package var device: String?
    package var kind: Kind
    /// The alarm's code, or the self-test's status code, where it has one.
    package var code: String?
    /// What it said: an alarm's text, the error, the UPS's description.
    package var detail: String
    /// Seen at the first reading after a start: recorded only when it differs from the last
    /// one the journal has of its condition (``HistoryStore/record(_:)``), so a restart neither
    /// repeats an outage nor loses the mains coming back while the exporter was down.
    package var atStart = false

    package init(time: Int64, server: String, device: String? = nil, kind: Kind, code: String? = nil, detail: String = "",
                 atStart: Bool = false) {
        self.time = time
        self.server = server
        self.device = device
        self.kind = kind
        self.code = code
        self.detail = detail
        self.atStart = atStart
    }
}

/// Finds the journal's events in the publications: each UPS's and each server's conditions
/// compared with the previous publication's. CPU work; the writer stores what it returns.
package struct HistoryEventTracker: Sendable {
    /// What one UPS was in, by condition.
    package struct UPSConditions: Equatable {
        package var power: Bool?
        package var low = false
        package var bypass = false
        package var fault = false
        package var test = false
        package var disconnected = false
        package var stale = false
        /// Active alarms: code → text.
        package var alarms: [String: String] = [:]
        /// The battery's measured health is low (`nil`: not measured enough, or no meter).
        package var healthLow: Bool?
        /// The health in percent, for the event's text.
        package var healthPercent: Int?
        /// No self-test for longer than `battery.self_test_days` (`nil`: no meter).
        package var testOverdue: Bool?
    }

    private var ups: [HistoryUPS: UPSConditions] = [:]
    private var servers: [String: HistoryEvent.Kind] = [:]

    package init() {}

    /// The events of `state` against the previous one, at `now` (Unix seconds). A UPS or
    /// server seen for the first time gives its current conditions as ``HistoryEvent/atStart``.
    /// With the battery health meter (`battery`, the front end's), a battery's health falling
    /// below its threshold and a self-test becoming overdue are events too.
    package mutating func events<C: Clock>(in state: FleetState<C>, now: Int64, battery: BatteryHealthMeter? = nil) -> [HistoryEvent] {
        var events: [HistoryEvent] = []
        for server in state.servers {
            let condition: HistoryEvent.Kind? =
                server.health.lastFinished == nil ? nil
                : !server.health.winPowerReachable ? .serverUnreachable
                : !server.health.authenticated ? .loginRefused : .serverBack
            if let condition {
                let previous = servers[server.name]
                if previous != condition {
                    events.append(HistoryEvent(time: now, server: server.name, kind: condition,
                                               detail: condition == .serverBack ? server.target : server.health.lastError ?? server.target,
                                               atStart: previous == nil))
                }
                servers[server.name] = condition
            }
            for reading in server.devices.readings {
                let device = reading.device
                let key = HistoryUPS(server: server.name, device: device.id)
                var current = Self.conditions(device, stale: server.isStale(reading.readAt, at: state.publishedAt))
                if let battery {
                    Self.addBattery(battery, key: server.energyKeyPrefix + device.id, device: device,
                                    lastTest: server.devices.selfTests[device.id]?.lastStart, now: now, to: &current)
                }
                let before = ups[key]
                ups[key] = current
                guard before != current else { continue }
                events += Self.changes(from: before, to: current, time: now, server: server.name, device: device,
                                       description: server.description(of: device))
            }
        }
        return events
    }

    /// What `device` is in now.
    package static func conditions(_ device: Device, stale: Bool) -> UPSConditions {
        var conditions = UPSConditions()
        conditions.power = device.isOnBattery
        conditions.low = device.realtime.flagsLowBattery
        conditions.bypass = device.isOnBypass ?? false
        conditions.fault = device.hasFault ?? false
        conditions.test = device.isBatteryTestRunning ?? false
        conditions.disconnected = device.connected == false
        conditions.stale = stale
        for alarm in device.activeAlarms?.alarms ?? [] {
            guard let code = alarm.code else { continue }
            conditions.alarms[code] = alarm.name ?? alarm.message ?? code
        }
        return conditions
    }

    /// The battery's health and self-test conditions of the UPS of `key`, as `battery` judges them.
    static func addBattery(_ battery: BatteryHealthMeter, key: String, device: Device, lastTest: Date?, now: Int64,
                           to conditions: inout UPSConditions) {
        if let health = battery.verdict(key, of: device)?.health, health.isFinite {
            conditions.healthLow = health < battery.rules.threshold
            conditions.healthPercent = Int(exactly: (min(max(health, 0), 10) * 100).rounded())
        }
        conditions.testOverdue = battery.selfTestOverdue(key, of: device, lastTest: lastTest, now: Date(timeIntervalSince1970: Double(now)))
    }

    /// The events from `before` (`nil`: first seen, every condition given as it is now, as
    /// ``HistoryEvent/atStart``) to `after`.
    static func changes(from before: UPSConditions?, to after: UPSConditions, time: Int64, server: String, device: Device,
                        description: String) -> [HistoryEvent] {
        let first = before == nil
        var events: [HistoryEvent] = []
        func add(_ kind: HistoryEvent.Kind, code: String? = nil, detail: String? = nil) {
            events.append(HistoryEvent(time: time, server: server, device: device.id, kind: kind, code: code,
                                       detail: detail ?? description, atStart: first))
        }
        func pair(_ was: Bool?, _ now: Bool?, _ start: HistoryEvent.Kind, _ end: HistoryEvent.Kind) {
            guard let now, first || was != now else { return }
            add(now ? start : end)
        }
        pair(before?.power, after.power, .onBattery, .mainsBack)
        pair(before?.low, after.low, .lowBattery, .lowBatteryCleared)
        pair(before?.bypass, after.bypass, .bypass, .bypassEnded)
        pair(before?.fault, after.fault, .fault, .faultCleared)
        pair(before?.disconnected, after.disconnected, .disconnected, .reconnected)
        pair(before?.stale, after.stale, .stale, .fresh)
        // Not known (too few measurements, or none since a new battery's installation) is not low:
        // the low health of a replaced battery ends, and a healthy one reaching enough
        // measurements says nothing.
        let low = after.healthLow ?? false
        if first || (before?.healthLow ?? false) != low {
            add(low ? .batteryHealthLow : .batteryHealthRecovered,
                detail: description + (after.healthPercent.map { ", battery health \($0) %" } ?? ""))
        }
        if first ? after.test : before?.test != after.test {
            let status = device.realtime.testStatus.map(String.init)
            add(after.test ? .selfTestStarted : .selfTestFinished, code: after.test ? nil : status,
                detail: after.test ? nil : description + (status.map { ", test status \($0)" } ?? ""))
        }
        // Not judged (no meter, or one made again by a reload) is not overdue.
        pair(before.map { $0.testOverdue ?? false }, after.testOverdue ?? false, .selfTestOverdue, .selfTestOverdueCleared)
        let previous = before?.alarms ?? [:]
        for (code, text) in after.alarms.sorted(by: { $0.key < $1.key }) where previous[code] == nil {
            add(.alarmRaised, code: code, detail: text)
        }
        for (code, text) in previous.sorted(by: { $0.key < $1.key }) where after.alarms[code] == nil {
            add(.alarmCleared, code: code, detail: text)
        }
        return events
    }
}
