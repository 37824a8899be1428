import FoundationEssentials
import Synchronization
import WPClient
package import WPEnergy
import WPCollector
package import WPFrontEnd
package import WPSNMP
import WPRuntime
package import WPWallClock

/// The SNMP agent's data: one UPS-MIB view per UPS of the fleet, from the fleet's published
/// state (never from WinPower), named as the NUT server names them (so `community@rack-a` and
/// `MONITOR rack-a@host` reach the same UPS).
///
/// The views are built once per publication (``rebuild(_:)``, on the publishing task), never
/// by a request: a request costs a dictionary lookup and a clock read under a lock held for
/// nothing else. A UPS whose reading is stale (older than its server's staleness window)
/// or disconnected is served with the `system` group and `upsAlarmCommunicationsLost` only,
/// never old readings nor its identification, whether or not collections are still published
/// (while WinPower is down, none is): each build makes that view too, with the instant its
/// readings expire, and a request after that instant is answered from it.
package final class SNMPFleetSource<C: Clock>: Sendable where C.Duration == Duration {
    /// One UPS as built: its views with readings and without, and when the first expires.
    private struct Entry {
        var name: String
        var fresh: (table: MIBTable, values: UPSMIBValues)
        var stale: (table: MIBTable, values: UPSMIBValues)
        /// When its readings go stale; `nil`: stale (or disconnected) already when built.
        var expiry: C.Instant?

        func served(at now: C.Instant) -> (table: MIBTable, values: UPSMIBValues) {
            guard let expiry, now <= expiry else { return stale }
            return fresh
        }
    }

    /// What requests read: entries by lower-cased UPS name, their order, the first UPS's
    /// name, and names by device id.
    private struct Served {
        var entries: [String: Entry] = [:]
        var order: [String] = []
        var first: String?
        var byDevice: [String: String] = [:]
    }

    /// What builds carry from one to the next (only ``rebuild(_:)`` takes its lock).
    private struct Cache {
        /// The entries of the last build.
        var entries: [String: Entry] = [:]
        /// Each UPS's alarm rows (RFC 1628: ids from 1, a new id for each new row, constant
        /// while the row lasts; `upsAlarmTime` when detected, 0 for what was present at the
        /// agent's start), by lower-cased UPS name.
        var alarmRows: [String: [UPSMIB.WellKnownAlarm: (id: UInt32, time: UInt32)]] = [:]
        var nextAlarmID: [String: UInt32] = [:]
        /// Each UPS's self-test record at the last rebuild, and when this agent saw its last
        /// test end (`upsTestElapsedTime` of a finished test), by lower-cased UPS name.
        var selfTests: [String: SelfTestRecord] = [:]
        var testEnds: [String: Date] = [:]
        var builtOnce = false
    }

    private let system: SystemGroup
    private let defaultUPS: String?
    private let version: String
    private let lowBatteryTime: Double
    /// The battery health meter now (`upsAlarmBatteryBad` where a battery's measured health is low).
    private let batteryHealth: @Sendable () -> BatteryHealthMeter?
    private let start: C.Instant
    private let startWall: Date
    private let clock: C
    private let wallClock: WallClock
    /// Held by a build from start to end: builds never overlap.
    private let cache = Mutex(Cache())
    /// Held by a request for a lookup, by a build to swap its result in; never while building.
    private let served = Mutex(Served())

    /// - Parameters:
    ///   - system: the agent's `system` group; its `sysName` is answered without a selector,
    ///     each UPS's view names the UPS.
    ///   - defaultUPS: `snmp.default_ups`: a device id or UPS name; else the first UPS.
    ///   - wallClock: the wall clock the outage ledger's self-test times are in.
    package init(system: SystemGroup, defaultUPS: String?, version: String,
                 lowBatteryTime: Double, clock: C, wallClock: WallClock,
                 batteryHealth: @escaping @Sendable () -> BatteryHealthMeter? = { nil }) {
        self.batteryHealth = batteryHealth
        self.system = system
        self.defaultUPS = defaultUPS
        self.version = version
        self.lowBatteryTime = lowBatteryTime
        self.clock = clock
        self.wallClock = wallClock
        self.start = clock.now
        self.startWall = wallClock.now
    }

    /// The view of the UPS `context` selects: `""` the default UPS, else a UPS name (any case)
    /// or device id; `nil` for none (the request is dropped and counted).
    package func view(context: String) -> (any SNMPMIBView)? {
        let now = clock.now
        let table: MIBTable? = served.withLock { cache in
            if context.isEmpty {
                let chosen = defaultUPS.map { cache.byDevice[$0] ?? $0.lowercased() } ?? cache.first
                return chosen.flatMap { cache.entries[$0]?.served(at: now).table } ?? (cache.entries.isEmpty ? Self.empty(system) : nil)
            }
            let key = cache.byDevice[context] ?? context.lowercased()
            return cache.entries[key]?.served(at: now).table
        }
        guard let table else { return nil }
        // Without a selector the agent speaks for itself: its own sysName, not the default UPS's.
        if context.isEmpty { return table.withSysName(system.name).withLiveUpTime(since: start, clock: clock) }
        return table.withLiveUpTime(since: start, clock: clock)
    }

    /// Every UPS's values as served now, in list order (the notifier's input).
    package func upsValues() -> [(name: String, values: UPSMIBValues)] {
        let now = clock.now
        return served.withLock { cache in
            cache.order.compactMap { cache.entries[$0] }.map { ($0.name, $0.served(at: now).values) }
        }
    }

    /// A view with the system group only: before the first collection, the agent still
    /// identifies itself.
    private static func empty(_ system: SystemGroup) -> MIBTable {
        var builder = MIBBuilder()
        system.add(to: &builder)
        return builder.build()
    }

    /// The alarm table of one UPS: rows kept for alarms still present, a new id (the next
    /// after the last given, from 1, skipping ids in use) and the time for each new one.
    private func alarmRows(for ups: String, present: [UPSMIB.WellKnownAlarm], in cache: inout Cache) -> [UPSMIBValues.Alarm] {
        var rows = cache.alarmRows[ups] ?? [:]
        rows = rows.filter { present.contains($0.key) }
        let now = cache.builtOnce ? SNMPService<C>.ticks(start.duration(to: clock.now)) : 0
        var next = cache.nextAlarmID[ups] ?? 1
        for alarm in present where rows[alarm] == nil {
            let used = Set(rows.values.map(\.id))
            while used.contains(next) { next = next == UInt32(Int32.max) ? 1 : next + 1 }
            rows[alarm] = (next, now)
            next = next == UInt32(Int32.max) ? 1 : next + 1
        }
        cache.alarmRows[ups] = rows
        cache.nextAlarmID[ups] = next
        return rows.map { UPSMIBValues.Alarm(id: $0.value.id, alarm: $0.key, time: $0.value.time) }.sorted { $0.id < $1.id }
    }

    /// Builds every UPS's views from `state` (a publication), each under the name the
    /// publication gives it (the fleet's one naming, the NUT server's too), under the build
    /// lock only; requests wait at most for the result's swap.
    package func rebuild(_ state: FleetState<C>) {
        cache.withLock { cache in rebuild(&cache, servers: state.servers) }
    }

    private func rebuild(_ cache: inout Cache, servers: [FleetState<C>.Server]) {
        var named: [(name: String, reading: WinPowerCollector<C>.DeviceReadings.Reading, stalenessWindow: Duration,
                     selfTest: SelfTestRecord?, outageStart: Date?, transfers: Int?, replace: Bool)] = []
        let meter = batteryHealth()
        for server in servers {
            for reading in server.devices.readings {
                guard let name = server.names[reading.device.id] else { continue }
                named.append((name, reading, server.stalenessWindow, server.devices.selfTests[reading.device.id],
                              server.devices.outageStarts[reading.device.id], server.devices.transfers[reading.device.id],
                              meter?.needsReplacement(server.energyKeyPrefix + reading.device.id, of: reading.device) ?? false))
            }
        }
        let instant = clock.now
        // A UPS served without its readings since the last build keeps that view's alarm row.
        for (key, entry) in cache.entries {
            guard let expiry = entry.expiry, instant > expiry else { continue }
            cache.alarmRows[key] = Dictionary(entry.stale.values.alarms.map { ($0.alarm, (id: $0.id, time: $0.time)) },
                                              uniquingKeysWith: { first, _ in first })
            cache.nextAlarmID[key] = Self.after(entry.stale.values.alarms.map(\.id).max() ?? 0)
        }
        var entries: [String: Entry] = [:]
        var order: [String] = []
        var byDevice: [String: String] = [:]
        var selfTests: [String: SelfTestRecord] = [:]
        let now = wallClock.now
        for (name, reading, stalenessWindow, record, outageStart, transfers, replace) in named {
            let device = reading.device
            let lowered = name.lowercased()
            selfTests[lowered] = record
            if record?.inProgress == true || record?.lastStart != cache.selfTests[lowered]?.lastStart {
                cache.testEnds[lowered] = nil
            } else if cache.selfTests[lowered]?.inProgress == true, record?.inProgress == false {
                // Seen ending at this reading: its wall time on the agent's clock.
                cache.testEnds[lowered] = startWall.addingTimeInterval(start.duration(to: reading.readAt).inSeconds)
            }
            let test = UPSMIBMapping.TestTimes(record: record, agentStart: startWall, now: now, end: cache.testEnds[lowered])
            var ups = UPSMIBMapping.values(of: device, name: name, agentVersion: version, lowBatteryTime: lowBatteryTime, test: test,
                                           onBatterySince: outageStart, now: now, replaceBattery: replace)
            ups.inputLineBads = transfers.map { UInt32(clamping: $0) }
            let expiry = reading.readAt.advanced(by: stalenessWindow)
            // The identification goes with the readings: NUT's snmp-ups started now would find
            // upsIdentModel, start, and drop for good every object it found no instance of;
            // without it, the driver exits ("did not match this device") and its service
            // manager starts it again until the UPS is read (docs/snmp.md).
            var stale = UPSMIBValues()
            let entry: Entry
            if device.connected == false || instant > expiry {
                stale.alarms = alarmRows(for: lowered, present: [.communicationsLost], in: &cache)
                let view = table(name: name, stale)
                entry = Entry(name: name, fresh: (view, stale), stale: (view, stale), expiry: nil)
            } else {
                ups.alarms = alarmRows(for: lowered, present: ups.alarms.map(\.alarm), in: &cache)
                // Lost communication once the readings expire: the row it will have then.
                let lost = cache.alarmRows[lowered]?[.communicationsLost]
                    ?? (id: cache.nextAlarmID[lowered] ?? 1, time: SNMPService<C>.ticks(start.duration(to: expiry)))
                stale.alarms = [.init(id: lost.id, alarm: .communicationsLost, time: lost.time)]
                entry = Entry(name: name, fresh: (table(name: name, ups), ups), stale: (table(name: name, stale), stale),
                              expiry: expiry)
            }
            entries[lowered] = entry
            order.append(lowered)
            if byDevice[device.id] == nil { byDevice[device.id] = lowered }
        }
        cache.alarmRows = cache.alarmRows.filter { entries[$0.key] != nil }
        cache.selfTests = selfTests
        cache.testEnds = cache.testEnds.filter { entries[$0.key] != nil }
        cache.builtOnce = true
        cache.entries = entries
        let first = order.first
        let result = Served(entries: entries, order: order, first: first, byDevice: byDevice)
        served.withLock { $0 = result }
    }

    /// The view of one UPS: the `system` group naming it, and its UPS-MIB values.
    private func table(name: String, _ values: UPSMIBValues) -> MIBTable {
        var builder = MIBBuilder()
        var system = self.system
        system.name = name
        system.add(to: &builder)
        values.add(to: &builder)
        return builder.build()
    }

    /// The alarm id after `id` (ids run from 1 to 2^31 - 1, then wrap).
    private static func after(_ id: UInt32) -> UInt32 { id >= UInt32(Int32.max) ? 1 : id + 1 }
}
