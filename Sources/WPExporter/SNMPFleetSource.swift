import FoundationEssentials
import Synchronization
import WPClient
import WPCollector
import WPSNMP

/// The SNMP agent's data: one UPS-MIB view per UPS of the fleet, from the collectors'
/// published readings (never from WinPower), named as the NUT server names them (so
/// `community@rack-a` and `MONITOR rack-a@host` reach the same UPS).
///
/// The views are rebuilt once per published collection (the first request after it), and
/// when a reading served goes stale, under a lock held for that CPU work only; a request then
/// costs a dictionary lookup. A UPS whose reading is stale (older than its collector's
/// staleness window) or disconnected is served with the `system` group and
/// `upsAlarmCommunicationsLost` only, never old readings nor its identification, whether or not
/// collections are still published (while WinPower is down, none is).
package final class SNMPFleetSource<C: Clock>: Sendable where C.Duration == Duration {
    private struct Cache {
        var built: [ObjectIdentifier] = []
        /// Views by lower-cased UPS name, and the first UPS's name.
        var views: [String: MIBTable] = [:]
        var first: String?
        var byDevice: [String: String] = [:]
        var values: [(name: String, values: UPSMIBValues)] = []
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
        /// When the first UPS served with readings goes stale (its reading older than its
        /// collector's staleness window): the views are rebuilt then even without a new
        /// collection, as while WinPower is down none is published.
        var staleAt: C.Instant?
    }

    private let fleet: ServerFleet<C>
    private let names: NUTFleetSource<C>
    private let system: SystemGroup
    private let defaultUPS: String?
    private let version: String
    private let lowBatteryTime: Double
    private let start: C.Instant
    private let startWall: Date
    private let clock: C
    private let wallClock: @Sendable () -> Date
    private let cache = Mutex(Cache())

    /// - Parameters:
    ///   - names: the NUT names of the devices (its data source, with or without a NUT server).
    ///   - system: the agent's `system` group; its `sysName` is answered without a selector,
    ///     each UPS's view names the UPS.
    ///   - defaultUPS: `snmp.default_ups`: a device id or UPS name; else the first UPS.
    ///   - wallClock: the wall clock the outage ledger's self-test times are in.
    package init(fleet: ServerFleet<C>, names: NUTFleetSource<C>, system: SystemGroup, defaultUPS: String?, version: String,
                 lowBatteryTime: Double, clock: C, wallClock: @escaping @Sendable () -> Date) {
        self.fleet = fleet
        self.names = names
        self.system = system
        self.defaultUPS = defaultUPS
        self.version = version
        self.lowBatteryTime = lowBatteryTime
        self.clock = clock
        self.wallClock = wallClock
        self.start = clock.now
        self.startWall = wallClock()
    }

    /// The view of the UPS `context` selects: `""` the default UPS, else a UPS name (any case)
    /// or device id; `nil` for none (the request is dropped and counted).
    package func view(context: String) -> (any SNMPMIBView)? {
        let table: MIBTable? = current { cache in
            if context.isEmpty {
                let chosen = defaultUPS.map { cache.byDevice[$0] ?? $0.lowercased() } ?? cache.first
                return chosen.flatMap { cache.views[$0] } ?? (cache.views.isEmpty ? Self.empty(system) : nil)
            }
            let key = cache.byDevice[context] ?? context.lowercased()
            return cache.views[key]
        }
        guard let table else { return nil }
        // Without a selector the agent speaks for itself: its own sysName, not the default UPS's.
        if context.isEmpty { return table.withSysName(system.name).withLiveUpTime(since: start, clock: clock) }
        return table.withLiveUpTime(since: start, clock: clock)
    }

    /// Every UPS's values as served now, in list order (the notifier's input).
    package func upsValues() -> [(name: String, values: UPSMIBValues)] {
        current { $0.values }
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

    private func current<T>(_ body: (Cache) -> T) -> T {
        let collectors = fleet.pipelines.map { (name: $0.name, collector: $0.collector) }
        let readings = collectors.map { $0.collector.devices }
        let identities = readings.map(ObjectIdentifier.init)
        let now = clock.now
        let outdated = { (cache: Cache) in cache.built != identities || cache.staleAt.map { now > $0 } == true }
        let served = cache.withLock { outdated($0) } ? names.servedNames() : nil
        return cache.withLock { cache in
            if let served, outdated(cache) {
                rebuild(&cache, collectors: collectors, readings: readings, names: served)
                cache.built = identities
            }
            return body(cache)
        }
    }

    private func rebuild(_ cache: inout Cache, collectors: [(name: String, collector: WinPowerCollector<C>)],
                         readings: [WinPowerCollector<C>.DeviceReadings], names: [(key: String, name: String)]) {
        var byKey: [String: (reading: WinPowerCollector<C>.DeviceReadings.Reading, collector: WinPowerCollector<C>,
                             selfTest: SelfTestRecord?, outageStart: Date?)] = [:]
        for (server, readings) in zip(collectors, readings) {
            for reading in readings.readings {
                byKey[NUTFleetSource<C>.key(server: server.name, device: reading.device.id)] =
                    (reading, server.collector, readings.selfTests[reading.device.id], readings.outageStarts[reading.device.id])
            }
        }
        var views: [String: MIBTable] = [:]
        var byDevice: [String: String] = [:]
        var values: [(name: String, values: UPSMIBValues)] = []
        var selfTests: [String: SelfTestRecord] = [:]
        var staleAt: C.Instant?
        let now = wallClock()
        for (key, name) in names {
            guard let (reading, collector, record, outageStart) = byKey[key] else { continue }
            let device = reading.device
            let lowered = name.lowercased()
            selfTests[lowered] = record
            if record?.inProgress == true || record?.lastStart != cache.selfTests[lowered]?.lastStart {
                cache.testEnds[lowered] = nil
            } else if cache.selfTests[lowered]?.inProgress == true, record?.inProgress == false {
                // Seen ending at this reading: its wall time on the agent's clock.
                cache.testEnds[lowered] = startWall.addingTimeInterval(start.duration(to: reading.readAt).seconds)
            }
            let test = UPSMIBMapping.TestTimes(record: record, agentStart: startWall, now: now, end: cache.testEnds[lowered])
            var ups = UPSMIBMapping.values(of: device, name: name, agentVersion: version, lowBatteryTime: lowBatteryTime, test: test,
                                           onBatterySince: outageStart, now: now)
            if device.connected == false || collector.age(of: reading.readAt) > collector.configuration.stalenessWindow {
                // The identification goes with the readings: NUT's snmp-ups started now would find
                // upsIdentModel, start, and drop for good every object it found no instance of;
                // without it, the driver exits ("did not match this device") and its service
                // manager starts it again until the UPS is read (docs/snmp.md).
                var stale = UPSMIBValues()
                stale.alarms = [.init(id: UPSMIB.WellKnownAlarm.communicationsLost.rawValue, alarm: .communicationsLost)]
                ups = stale
            } else {
                let expiry = reading.readAt.advanced(by: collector.configuration.stalenessWindow)
                staleAt = staleAt.map { min($0, expiry) } ?? expiry
            }
            ups.alarms = alarmRows(for: name.lowercased(), present: ups.alarms.map(\.alarm), in: &cache)
            var builder = MIBBuilder()
            var system = self.system
            system.name = name
            system.add(to: &builder)
            ups.add(to: &builder)
            views[lowered] = builder.build()
            if byDevice[device.id] == nil { byDevice[device.id] = lowered }
            values.append((name, ups))
        }
        cache.alarmRows = cache.alarmRows.filter { views[$0.key] != nil }
        cache.selfTests = selfTests
        cache.testEnds = cache.testEnds.filter { views[$0.key] != nil }
        cache.builtOnce = true
        cache.staleAt = staleAt
        cache.views = views
        cache.byDevice = byDevice
        cache.first = names.first.map { $0.name.lowercased() }.flatMap { views[$0] == nil ? nil : $0 }
        cache.values = values
    }
}
