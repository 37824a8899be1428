package import WPTime
import WPText
package import FoundationEssentials
package import WPClient
package import WPEnergy
import WPRuntime

/// What a UPS is doing, as the status page shows it; the cases in the order of attention.
package enum UPSState: String, Sendable, CaseIterable, Comparable {
    /// Mains failed: the battery carries the load (mode 4).
    case battery
    /// A fault code or fault mode.
    case fault
    /// WinPower lost the UPS.
    case disconnected
    /// The reading is older than the collector's staleness window.
    case stale
    /// On bypass: mains without the inverter's protection.
    case bypass
    /// On mains with active alarms.
    case alarm
    /// A battery self-test: on battery on purpose.
    case test
    /// On mains, nothing to say.
    case mains
    /// A mode WinPower is not known to send, or none.
    case unknown

    /// Whether the UPS needs someone now (everything before a self-test).
    package var needsAttention: Bool { self < .test }

    package static func < (lhs: UPSState, rhs: UPSState) -> Bool {
        allCases.firstIndex(of: lhs)! < allCases.firstIndex(of: rhs)!
    }

    /// The state of `device`; `stale` when its reading is older than the staleness window.
    package init(_ device: Device, stale: Bool) {
        // An old reading says nothing about now, not even that WinPower had lost the UPS.
        if stale {
            self = .stale
        } else if device.connected == false {
            self = .disconnected
        } else if device.isOnBattery == true {
            self = .battery
        } else if device.hasFault == true {
            self = .fault
        } else if device.isOnBypass == true {
            self = .bypass
        } else if device.hasAlarm == true {
            self = .alarm
        } else if device.isBatteryTestRunning == true {
            self = .test
        } else if device.operatingMode == nil {
            self = .unknown
        } else {
            self = .mains
        }
    }
}

/// One outage of one UPS as the status page lists it: from the collector's outage ledger (its
/// start, end and duration, its energy on battery as the ledger's discharge grew) and the
/// lowest battery charge the page saw during it.
package struct OutageRecord: Sendable, Equatable, Codable {
    package var start: Date
    /// `nil` while it lasts, or when its end was not observed.
    package var end: Date?
    /// Seconds; `nil` while it lasts or when its end was not observed.
    package var durationSeconds: Double?
    /// The lowest battery charge read during it (%); `nil` when none was read.
    package var lowestBatteryPercent: Double?
    /// Energy delivered on battery during it (Wh); `nil` when the page did not see it start.
    package var energyOnBatteryWattHours: Double?
    /// Whether it is in progress.
    package var ongoing: Bool

    package init(start: Date, end: Date?, durationSeconds: Double?, lowestBatteryPercent: Double?,
                 energyOnBatteryWattHours: Double?, ongoing: Bool) {
        (self.start, self.end, self.durationSeconds) = (start, end, durationSeconds)
        (self.lowestBatteryPercent, self.energyOnBatteryWattHours, self.ongoing) = (lowestBatteryPercent, energyOnBatteryWattHours, ongoing)
    }

    enum CodingKeys: String, CodingKey {
        case start, end, ongoing
        case durationSeconds = "duration_seconds"
        case lowestBatteryPercent = "lowest_battery_percent"
        case energyOnBatteryWattHours = "energy_on_battery_wh"
    }
}

/// One UPS on the status page: what one publication said of it.
package struct UPSRow: Sendable {
    /// Its server's name (empty for the server of a `winpower`-only configuration).
    package var server: String
    /// What the page shows for the server: its name, or its target when it has none.
    package var serverDisplay: String
    package var deviceID: String
    /// Its alias, else its model, else its device id.
    package var name: String
    package var model: String?
    package var state: UPSState
    package var loadWatts: Double?
    package var loadPercent: Double?
    package var batteryPercent: Double?
    package var runtimeSeconds: Double?
    package var inputVoltage: Double?
    package var outputVoltage: Double?
    /// The energy total (kWh), as `/metrics` serves it.
    package var energyKilowattHours: Double?
    /// What the total grew by since the local day and month began (kWh), or since the page first
    /// saw the UPS when that was later.
    package var energyTodayKilowattHours: Double?
    package var energyMonthKilowattHours: Double?
    /// The cost totals by tariff period (`flat`, `peak`, `valley`…), in the configured currency.
    package var costs: [(period: String, amount: Double)] = []
    /// The latest outage (ongoing or finished), from the ledger.
    package var lastOutage: OutageRecord?
    /// Its active alarms as WinPower sent them (code, name, text).
    package var alarms: [Alarm] = []
    /// Its site (``StatusModel/sites``): its server's `site` label, else its server when there
    /// are several, else its WinPower area when its server's UPSs are in several; empty for none.
    package var site = ""
    /// The last 24 hours for its sparkline (``StatusHistory/spark(until:)``).
    package var spark: (load: [Int?], battery: [Int?]) = ([], [])
    /// Whether a battery self-test is running (mode 5), and WinPower's `testStatus` code.
    package var selfTestRunning = false
    package var testStatus: Int?
    /// Its battery's configured installation day and life (docs/battery.md).
    package var battery: BatteryLife?
    /// Days from today (UTC) to the battery's replace-by day: negative once it has passed.
    package var batteryDaysLeft: Int64?
    /// The battery's age today in years, to one decimal.
    package var batteryAgeYears: Double?
    /// Its battery's measured health (docs/battery.md, "Measured health"); `nil` without a
    /// measurement kept or without the meter.
    package var batteryHealth: BatteryHealthVerdict?
    /// When its last self-test started (the outage ledger's), if one was seen.
    package var lastSelfTest: Date?
    /// WinPower's `testStatus` code at that test's end (its result).
    package var lastSelfTestStatus: Int?
    /// No self-test for longer than `battery.self_test_days` (`nil`: not judged).
    package var selfTestOverdue: Bool?
    /// Since when the exporter watches it without a self-test seen (the meter's first sight).
    package var watchedSince: Date?

    /// Whether the battery is due for replacement within ``batteryDueDays`` or past its day.
    package var batteryDue: Bool { batteryDaysLeft.map { $0 <= Self.batteryDueDays } ?? false }

    /// How many days before its replace-by day a battery is said to be due (as the alert rule).
    package static let batteryDueDays: Int64 = 30

    /// The page of this UPS: `/status/ups?device=…` (`&server=…` with `servers`).
    package var query: String {
        let device = "device=" + PercentEncoding.encoded(deviceID, strict: true)
        return server.isEmpty ? device : device + "&server=" + PercentEncoding.encoded(server, strict: true)
    }

    /// The order of attention: state, then lower battery, then server and name.
    package static func attentionFirst(_ lhs: UPSRow, _ rhs: UPSRow) -> Bool {
        if lhs.state != rhs.state { return lhs.state < rhs.state }
        let (left, right) = (lhs.batteryPercent ?? .infinity, rhs.batteryPercent ?? .infinity)
        if left != right { return left < right }
        if lhs.server != rhs.server { return lhs.server < rhs.server }
        if lhs.name != rhs.name { return lhs.name < rhs.name }
        return lhs.deviceID < rhs.deviceID
    }
}

/// One site's roll-up on `/status`: its UPSs, how many need attention and are on battery now,
/// their energy today and this month (kWh) and its cost.
package struct SiteRow: Sendable, Equatable {
    package var name: String
    package var count = 0
    package var attention = 0
    package var onBattery = 0
    package var todayKilowattHours = 0.0
    package var monthKilowattHours = 0.0
    package var cost = 0.0

    package init(name: String) { self.name = name }

    /// The roll-ups of `rows` by site, the ones with UPSs needing attention first, then by name.
    package static func rollUps(_ rows: [UPSRow]) -> [SiteRow] {
        var sites: [String: SiteRow] = [:]
        for row in rows {
            var site = sites[row.site] ?? SiteRow(name: row.site)
            site.count += 1
            if row.state.needsAttention { site.attention += 1 }
            if row.state == .battery { site.onBattery += 1 }
            site.todayKilowattHours += row.energyTodayKilowattHours.flatMap { $0.isFinite ? $0 : nil } ?? 0
            site.monthKilowattHours += row.energyMonthKilowattHours.flatMap { $0.isFinite ? $0 : nil } ?? 0
            site.cost += row.costs.reduce(0) { $0 + ($1.amount.isFinite ? $1.amount : 0) }
            sites[row.site] = site
        }
        return sites.values.sorted { ($0.attention == 0 ? 1 : 0, $0.name) < ($1.attention == 0 ? 1 : 0, $1.name) }
    }
}

/// One WinPower server's own health on the status page.
package struct ServerRow: Sendable {
    package var name: String
    package var target: String
    package var healthy: Bool
    package var deviceCount: Int
    package var lastSuccess: Date?
    package var lastError: String?
    package var inProgress: Bool
}

/// What the status page shows at one publication: every server and every UPS, in the order of
/// attention.
package struct StatusModel: Sendable {
    package var servers: [ServerRow]
    package var ups: [UPSRow]
    /// When it was made (wall clock).
    package var generatedAt: Date
    /// Seconds between refreshes of the page.
    package var refreshSeconds: Int
    /// The currency of the costs (`energy.tariffs.currency`), `nil` without tariffs.
    package var currency: String?
    /// When the energy totals started counting (the state file's origin), when known.
    package var energySince: Date?
    /// The time zone times are shown in (and days and months begin in).
    package var timeZone: TimeZoneRules = .fixed(0)
    /// The sites' roll-ups (``SiteRow/rollUps(_:)``); the UPSs are grouped by them when there are several.
    package var sites: [SiteRow] = []
    /// Whether the fleet table names each UPS's server: several servers grouped by `site` labels.
    package var showsServer = false

    /// Whether the fleet table groups its rows by site.
    package var grouped: Bool { sites.count > 1 }

    package static let empty = StatusModel(servers: [], ups: [], generatedAt: Date(timeIntervalSince1970: 0),
                                           refreshSeconds: 30, currency: nil, energySince: nil)

    /// The UPSs that need attention now.
    package var attentionCount: Int { ups.count { $0.state.needsAttention } }
}
