#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
package import FoundationEssentials
import Synchronization
import WPClient
import WPCollector
package import WPEnergy
package import WPHistory
import WPConfig
package import WPFrontEnd
import WPRuntime
package import WPLogging
import WPServer
package import WPStorage
package import WPWallClock

/// The status pages (`/status`, a page per UPS, their JSON and the outage downloads) over the
/// fleet's publications: every UPS of every WinPower server, the ones that need attention first.
///
/// Subscribed to the publication, it keeps per UPS a bounded history (``StatusHistory``: 24 h
/// in 5-minute slots) and its recent outages (from the collector's outage ledger, at most
/// ``outagesKept``), and makes a ``StatusModel``: CPU work that finishes, on the publishing
/// task. The pages are rendered when asked for, by handlers that run on Swift's pool, never on
/// an event loop, once per publication and language (cached until the next).
package final class StatusPage<C: Clock>: FrontEnd where C.Duration == Duration {
    package let name = "the status pages"
    /// Outages kept per UPS (the most recent).
    package static var outagesKept: Int { 50 }
    /// How long a UPS its server no longer lists is shown as stale before it is forgotten.
    package static var staleKept: TimeInterval { 24 * 3600 }

    private struct Tracked: Sendable {
        var history = StatusHistory()
        var outages: [OutageRecord] = []
        /// The ledger's discharge when the ongoing outage began (J), when the page saw it begin.
        var dischargeAtStart: Double?
        /// Whether an earlier publication had this UPS (an outage starting now is seen starting).
        var seen = false
        /// The energy total when the local day and month began (kept in the data directory).
        var day: StatusMemory.Baseline?
        var month: StatusMemory.Baseline?
        /// Its row at the last publication that listed it, and when (wall clock): a UPS its
        /// server stops listing (WinPower down, its reading past the staleness window) stays on
        /// the page as stale for ``staleKept``, rather than vanishing.
        var last: (row: UPSRow, at: Date)?

        /// What the data directory keeps of it.
        var kept: StatusMemory.UPS {
            StatusMemory.UPS(day: day, month: month, dischargeAtStart: dischargeAtStart, outages: outages)
        }
    }

    private struct State: Sendable {
        var tracked: [String: Tracked] = [:]
        /// What the data directory kept of UPSs not published since the start, by key: taken
        /// up when a publication lists them, kept (and written back) until ``restoredUntil``.
        var restored: [String: Tracked] = [:]
        var restoredUntil = Date.distantPast
        var model = StatusModel.empty
        var generation: UInt64 = 0
        /// The last 24 hours the history database kept, by key, for UPSs not published since
        /// it was read: taken up when a publication lists them, dropped after ``staleKept``.
        var seeded: [String: StatusHistory] = [:]
        var seededUntil = Date.distantPast
    }

    /// Rendered bodies of the current generation, by (kind, language), and its exposition's
    /// lines by UPS.
    private struct Cache: Sendable {
        var generation: UInt64 = .max
        var bodies: [String: [UInt8]] = [:]
        var index: StatusExpositionIndex?
        /// A page is making ``index`` now.
        var indexing = false
    }

    private let state = Mutex(State())
    private let cache = Mutex(Cache())
    let wallClock: WallClock
    /// The fleet as published now: `/metrics`' exposition, for a UPS page's lines.
    private let current: @Sendable () -> FleetState<C>
    /// The costs of a device's energy by period, and the currency (``StatusCosts``), as they
    /// are now (the cost counters a reload made again are the ones read).
    private let currentCosts: @Sendable () -> StatusCosts
    /// The battery health meter the exporter has now, if any (its verdicts on the UPS pages).
    private let batteryHealth: @Sendable () -> BatteryHealthMeter?
    /// Where the day and month baselines and the outages are kept (``StatusMemory``).
    private let memory: StatusMemory?
    /// The history API's database and settings (``StatusHistorySource``); `nil` without a data directory.
    let historySource: StatusHistorySource?

    /// - Parameters:
    ///   - publication: the fleet's publications (the page subscribes to it and starts from its current state).
    ///   - costs: the energy cost by period of each device, when tariffs are configured, read
    ///     at each publication and page.
    ///   - wallClock: the wall clock (history slots, outage times).
    ///   - sections: the store's sections, where the energy of the day and month and the
    ///     outages are kept across restarts (``StatusMemory``); `nil` keeps them in memory only.
    ///   - logger: where a kept record that cannot be read is reported.
    ///   - history: where `/status/history.json` and `.csv` read; `nil` answers them 404.
    ///   - batteryHealth: the battery health meter now, read at each publication.
    package init(publication: some FleetPublishing<C>,
                 costs: @escaping @Sendable () -> StatusCosts = { StatusCosts() },
                 batteryHealth: @escaping @Sendable () -> BatteryHealthMeter? = { nil },
                 wallClock: WallClock,
                 sections: StateSections? = nil, logger: WPLogger = .disabled,
                 history: StatusHistorySource? = nil) {
        currentCosts = costs
        self.batteryHealth = batteryHealth
        historySource = history
        self.wallClock = wallClock
        memory = sections.map(StatusMemory.init)
        if let memory {
            let (kept, unreadable) = memory.load()
            for problem in unreadable {
                logger.warn("a status page record of the data directory is unreadable and dropped", ["record": .string(problem)])
            }
            let until = wallClock.now.addingTimeInterval(Self.staleKept)
            state.withLock { state in
                for (key, ups) in kept {
                    var entry = Tracked()
                    entry.day = ups.day
                    entry.month = ups.month
                    entry.dischargeAtStart = ups.dischargeAtStart
                    entry.outages = Array(Self.deduplicated(ups.outages).suffix(Self.outagesKept))
                    state.restored[key] = entry
                }
                state.restoredUntil = until
            }
        }
        current = { [publication] in publication.current }
        published(publication.current)
        publication.subscribe { [weak self] in self?.published($0) }
        if let history, history.settings().enabled {
            // The charts and sparklines start from the database's last 24 hours, not empty.
            Task { [weak self] in await self?.seed(from: history.reader) }
        }
    }

    /// Nothing to run: the pages are rendered on requests to the exporter's listener
    /// (``routes``), the memory follows the publication in its subscriber. Returns when cancelled.
    package func run() async throws {
        await untilCancelled()
    }

    /// Reads every UPS's 5-minute slots of the last 24 hours from the history database (on its
    /// reader's threads) into the page's memory, where it holds nothing newer.
    package func seed(from reader: HistoryReader) async {
        let now = wallClock.now
        let end = Int64(now.timeIntervalSince1970.rounded(.down))
        let folded = await reader.foldFiveMinuteSlots(from: end - 86_400, to: end + 1, into: [String: StatusHistory]()) { histories, slot in
            let key = slot.ups.server.isEmpty ? slot.ups.device : EnergyKey.qualified(server: slot.ups.server, device: slot.ups.device)
            histories[key, default: StatusHistory()].seed(
                slot: Int(slot.start / HistoryTier.fiveMinutes.seconds), load: slot.mean(.loadPercent),
                battery: slot.mean(.batteryCharge), inputVoltage: slot.mean(.inputVoltage))
        }
        guard case .success(let histories) = folded, !histories.isEmpty else { return }
        state.withLock { state in
            for (key, history) in histories {
                if state.tracked[key] != nil {
                    state.tracked[key]?.history.merge(history)
                } else {
                    state.seeded[key] = history
                }
            }
            state.seededUntil = now.addingTimeInterval(Self.staleKept)
        }
    }

    /// The model of the latest publication.
    package var model: StatusModel { state.withLock { $0.model } }

    /// UPSs whose history is kept now.
    package var trackedCount: Int { state.withLock { $0.tracked.count } }

    /// Takes a publication: records every UPS's reading in its history, follows its outages,
    /// makes the model. Devices no longer published are forgotten (the memory follows the fleet).
    package func published(_ fleet: FleetState<C>) {
        let now = wallClock.now
        let costs = currentCosts()
        let meter = batteryHealth()
        var rows: [UPSRow] = []
        var servers: [ServerRow] = []
        var readings: [(key: String, row: UPSRow, ledger: OutageLedger?, joules: Double?)] = []
        // The key prefixes of the servers published now: a UPS of one of them not listed is stale.
        var prefixes: [String] = []
        // The local date of the energy columns, in the pages' time zone.
        // (A wall clock beyond any calendar counts as the epoch's day.)
        let local = StatusRender.localTime(now, costs.timeZone) ?? LogTimestamp(seconds: 0)
        let (today, thisMonth) = (local.text(.day), local.text(.month))
        var refresh = Duration.seconds(300)
        var siteLabels = false
        for server in fleet.servers {
            let health = server.health
            // Its site: its `site` label, else the server itself when there are several, else
            // the WinPower area of each UPS when they are in several.
            let label = server.labels.first { $0.name == "site" }?.value
            if label != nil { siteLabels = true }
            let areas = Set(server.devices.readings.compactMap(\.device.asset.areaId))
            refresh = min(refresh, server.interval)
            let display = server.name.isEmpty ? server.target : server.name
            servers.append(ServerRow(
                name: display, target: server.target,
                healthy: health.isHealthy(sinceLastSuccess: server.sinceLastSuccess(at: fleet.publishedAt),
                                          stalenessWindow: server.stalenessWindow),
                deviceCount: server.devices.readings.count, lastSuccess: health.lastSuccess, lastError: health.lastError,
                inProgress: health.inProgress))
            prefixes.append(server.energyKeyPrefix)
            let energy = server.totals
            for reading in server.devices.readings {
                let device = reading.device
                let stale = server.isStale(reading.readAt, at: fleet.publishedAt)
                let realtime = device.realtime
                var row = UPSRow(
                    server: server.name, serverDisplay: display, deviceID: device.id,
                    name: device.displayName, model: device.asset.model, state: UPSState(device, stale: stale),
                    loadWatts: realtime.loadTotalWatt, loadPercent: realtime.loadPercent,
                    batteryPercent: realtime.batCapacity, runtimeSeconds: realtime.batRemainTime,
                    inputVoltage: realtime.inputVolt1, outputVoltage: realtime.outputVolt1)
                row.alarms = device.activeAlarms?.alarms ?? []
                row.testStatus = realtime.testStatus
                row.selfTestRunning = device.isBatteryTestRunning == true
                if let battery = device.battery, let installed = battery.installedDay, let replaceBy = battery.replaceByDay {
                    let day = Int64((now.timeIntervalSince1970 / 86_400).rounded(.down))
                    row.battery = battery
                    row.batteryDaysLeft = replaceBy - day
                    row.batteryAgeYears = (Double(max(0, day - installed)) / 365.25 * 10).rounded() / 10
                }
                row.lastSelfTest = server.devices.selfTests[device.id]?.lastStart
                row.lastSelfTestStatus = server.devices.selfTests[device.id]?.lastStatus
                if let meter {
                    let key = server.energyKeyPrefix + device.id
                    row.batteryHealth = meter.verdict(key, of: device)
                    row.watchedSince = meter.watchedSince(key)
                    row.selfTestOverdue = meter.selfTestOverdue(key, of: device, lastTest: row.lastSelfTest, now: now)
                }
                row.site = label ?? (fleet.servers.count > 1 ? display
                    : areas.count > 1 ? device.asset.areaId.map { "area " + String($0.prefix(8)) } ?? "" : "")
                let total = energy[device.id]
                if let total { row.energyKilowattHours = total.joules / 3_600_000 }
                row.costs = costs.costs(server.energyKeyPrefix + device.id)
                readings.append((server.energyKeyPrefix + device.id, row, total?.ledger, total?.joules))
            }
        }
        state.withLock { state in
            var tracked: [String: Tracked] = [:]
            tracked.reserveCapacity(readings.count)
            for (key, var row, ledger, joules) in readings {
                var entry = state.tracked[key] ?? state.restored.removeValue(forKey: key) ?? Tracked()
                if let seeded = state.seeded.removeValue(forKey: key) { entry.history.merge(seeded) }
                if let joules, joules.isFinite {
                    // A new day or month, or a total that went down (reset), starts from now.
                    if entry.day?.key != today || joules < entry.day?.joules ?? 0 { entry.day = StatusMemory.Baseline(today, joules) }
                    if entry.month?.key != thisMonth || joules < entry.month?.joules ?? 0 { entry.month = StatusMemory.Baseline(thisMonth, joules) }
                    row.energyTodayKilowattHours = (joules - (entry.day?.joules ?? joules)) / 3_600_000
                    row.energyMonthKilowattHours = (joules - (entry.month?.joules ?? joules)) / 3_600_000
                }
                if row.state != .stale && row.state != .disconnected {
                    entry.history.record(at: now, load: row.loadPercent, battery: row.batteryPercent,
                                         inputVoltage: row.inputVoltage)
                }
                if let ledger { Self.follow(ledger, battery: row.batteryPercent, into: &entry) }
                entry.seen = true
                row.spark = entry.history.spark(until: now)
                row.lastOutage = entry.outages.last
                entry.last = (row, now)
                tracked[key] = entry
                rows.append(row)
            }
            // The UPSs their server no longer lists, kept a while as stale: their name, their
            // server and what they last said of energy and outages; no live reading.
            for (key, var entry) in state.tracked where tracked[key] == nil {
                guard let last = entry.last, now.timeIntervalSince(last.at) < Self.staleKept,
                      prefixes.contains(where: { $0.isEmpty ? !key.contains(EnergyKey.separator) : key.hasPrefix($0) }) else {
                    continue
                }
                var row = UPSRow(server: last.row.server, serverDisplay: last.row.serverDisplay, deviceID: last.row.deviceID,
                                 name: last.row.name, model: last.row.model, state: .stale)
                row.site = last.row.site
                row.spark = entry.history.spark(until: now)
                row.energyKilowattHours = last.row.energyKilowattHours
                row.energyTodayKilowattHours = last.row.energyTodayKilowattHours
                row.energyMonthKilowattHours = last.row.energyMonthKilowattHours
                row.costs = last.row.costs
                row.lastOutage = entry.outages.last
                entry.last = (last.row, last.at)
                tracked[key] = entry
                rows.append(row)
            }
            let sites = SiteRow.rollUps(rows)
            if sites.count > 1 {
                // Grouped by site, in the sites' order, attention first within each.
                let order = Dictionary(uniqueKeysWithValues: sites.enumerated().map { ($1.name, $0) })
                rows.sort { order[$0.site] ?? 0 != order[$1.site] ?? 0 ? order[$0.site] ?? 0 < order[$1.site] ?? 0 : UPSRow.attentionFirst($0, $1) }
            } else {
                rows.sort(by: UPSRow.attentionFirst)
            }
            state.tracked = tracked
            if now >= state.restoredUntil { state.restored = [:] }
            if now >= state.seededUntil { state.seeded = [:] }
            state.generation &+= 1
            state.model = StatusModel(servers: servers, ups: rows, generatedAt: now,
                                      refreshSeconds: Int(min(max(refresh, .seconds(10)), .seconds(300)).components.seconds),
                                      currency: costs.currency, energySince: costs.since, timeZone: costs.timeZone,
                                      sites: sites, showsServer: fleet.servers.count > 1 && siteLabels)
        }
        keep()
    }

    /// Hands what the page keeps of each UPS to the data directory's sections for the next save.
    private func keep() {
        guard let memory else { return }
        let kept = state.withLock { state in
            var kept: [String: StatusMemory.UPS] = [:]
            kept.reserveCapacity(state.tracked.count + state.restored.count)
            for (key, entry) in state.restored { kept[key] = entry.kept }
            for (key, entry) in state.tracked { kept[key] = entry.kept }
            return kept
        }
        memory.save(kept)
    }

    /// Follows the ledger's outages into the page's list: an outage the ledger starts opens a
    /// record (its energy counted from now), one it ends closes it with the ledger's end and
    /// duration. The first time a UPS is seen, its last outage is taken as the ledger has it.
    ///
    /// One record per outage whatever restarts came between: the ledger keeps its start to the
    /// millisecond (the state file), the page to the microsecond, so starts within
    /// ``sameOutage`` are one outage; and no record stays in progress once the ledger has none
    /// open or has opened a later one (its end, not observed, stays unknown).
    private static func follow(_ ledger: OutageLedger, battery: Double?, into entry: inout Tracked) {
        guard let start = ledger.lastStart else { return }
        if let last = entry.outages.last, isSame(last.start, start) {
            // The same outage (seen again after a restart): keep the ledger's start.
            entry.outages[entry.outages.count - 1].start = start
        } else {
            // Nothing is integrated before an outage's second on-battery reading: a UPS seen
            // before, or one with no discharge yet, has its outage's energy counted from here.
            let seenStarting = entry.seen || ledger.dischargeJoules == 0
            entry.outages.append(OutageRecord(start: start, end: nil, durationSeconds: nil, lowestBatteryPercent: nil,
                                              energyOnBatteryWattHours: nil, ongoing: ledger.inOutage))
            entry.dischargeAtStart = ledger.inOutage ? (seenStarting ? ledger.dischargeJoules : nil) : nil
            if entry.outages.count > outagesKept { entry.outages.removeFirst(entry.outages.count - outagesKept) }
        }
        guard var last = entry.outages.popLast() else { return }
        defer { entry.outages.append(last) }
        if ledger.inOutage {
            if let battery, battery.isFinite { last.lowestBatteryPercent = min(last.lowestBatteryPercent ?? battery, battery) }
            if let base = entry.dischargeAtStart {
                last.energyOnBatteryWattHours = max(0, ledger.dischargeJoules - base) / 3600
            }
            last.ongoing = true
        } else if last.ongoing || last.end == nil {
            last.ongoing = false
            last.end = ledger.lastEnd
            last.durationSeconds = ledger.lastDuration
            entry.dischargeAtStart = nil
        }
        // The last record is out of the list here (put back on return): only it may go on.
        Self.closeUnobserved(&entry.outages)
    }

    /// How far apart two starts of one outage may be: the state file keeps them to the
    /// millisecond, so a start read back differs from the one seen by less than this.
    static var sameOutage: Double { 0.001 }

    /// Whether two recorded starts are the same outage's.
    static func isSame(_ first: Date, _ second: Date) -> Bool {
        abs(first.timeIntervalSince(second)) <= sameOutage
    }

    /// Closes every record in progress among `outages`: its end was not observed, so it stays
    /// unknown.
    private static func closeUnobserved(_ outages: inout [OutageRecord]) {
        for index in outages.indices where outages[index].ongoing {
            outages[index].ongoing = false
        }
    }

    /// The outages kept by an earlier run, as one record per outage: records whose starts are
    /// ``isSame(_:_:)`` merged (the one that ended wins; an earlier run could write the same
    /// outage twice), and none but the last in progress.
    package static func deduplicated(_ outages: [OutageRecord]) -> [OutageRecord] {
        var result: [OutageRecord] = []
        for outage in outages.sorted(by: { $0.start < $1.start }) {
            if let last = result.last, isSame(last.start, outage.start) {
                if last.ongoing || (last.end == nil && outage.end != nil) { result[result.count - 1] = outage }
                continue
            }
            result.append(outage)
        }
        for index in result.indices.dropLast() where result[index].ongoing { result[index].ongoing = false }
        return result
    }

    /// The outages kept for a UPS (oldest first), `nil` for a UPS not published now.
    package func outages(server: String, device: String) -> [OutageRecord]? {
        let key = server.isEmpty ? device : EnergyKey.qualified(server: server, device: device)
        return state.withLock { $0.tracked[key]?.outages }
    }

    /// The history points of a UPS (oldest first), `nil` for a UPS not published now.
    package func history(server: String, device: String) -> [StatusHistory.Point]? {
        let key = server.isEmpty ? device : EnergyKey.qualified(server: server, device: device)
        let now = wallClock.now
        return state.withLock { $0.tracked[key]?.history }?.points(until: now)
    }

    /// Lines of `/metrics` about a UPS (the publication's exposition, `server="…"` too with
    /// `servers:`), at most `limit`: from the publication's ``StatusExpositionIndex``, made by
    /// the first page that asks in each publication; the pages that ask while it is being made
    /// scan the text themselves (none waits for another).
    package func exposition(server: String, device: String, limit: Int = 400) -> [String] {
        let generation = state.withLock { $0.generation }
        let (index, build) = cache.withLock { cache -> (StatusExpositionIndex?, Bool) in
            if cache.generation != generation { cache = Cache(generation: generation) }
            if let index = cache.index { return (index, false) }
            if cache.indexing { return (nil, false) }
            cache.indexing = true
            return (nil, true)
        }
        if let index { return index.lines(server: server, device: device, limit: limit) }
        let text = current().exposition.snapshot.wholeText
        guard build else { return Self.scan(text, server: server, device: device, limit: limit) }
        let made = StatusExpositionIndex(text: text)
        cache.withLock { cache in
            guard cache.generation == generation else { return }
            cache.index = made
            cache.indexing = false
        }
        return made.lines(server: server, device: device, limit: limit)
    }

    /// The lines of `text` about a UPS, found by scanning it (memchr for the first byte, memcmp
    /// for the rest): a few milliseconds at 1,000 UPSs, for the pages that ask while the
    /// publication's index is being made.
    package static func scan(_ whole: [UInt8], server: String, device: String, limit: Int) -> [String] {
        let escaped = StatusExpositionIndex.escaped(device)
        let serverLabel = server.isEmpty ? nil : "server=\"\(StatusExpositionIndex.escaped(server))\""
        let needle = Array("device_id=\"\(escaped)\"".utf8)
        var lines: [String] = []
        whole.withUnsafeBytes { text in
            needle.withUnsafeBytes { pattern in
                guard let base = text.baseAddress, let key = pattern.baseAddress else { return }
                var offset = 0
                while lines.count < limit, offset + pattern.count <= text.count,
                      let found = memchr(base + offset, Int32(pattern[0]), text.count - offset - pattern.count + 1) {
                    let index = base.distance(to: UnsafeRawPointer(found))
                    guard memcmp(base + index, key, pattern.count) == 0 else {
                        offset = index + 1
                        continue
                    }
                    var start = index
                    var end = start
                    while start > 0, text[start - 1] != 0x0A { start -= 1 }
                    while end < text.count, text[end] != 0x0A { end += 1 }
                    if text[start] != 0x23 {
                        let line = String(decoding: UnsafeRawBufferPointer(rebasing: text[start..<end]), as: UTF8.self)
                        if serverLabel.map(line.contains) ?? true { lines.append(line) }
                    }
                    offset = end
                }
            }
        }
        return lines
    }

    /// The body named `name` of the current publication, when rendered already.
    func cachedBody(_ name: String) -> [UInt8]? {
        let generation = state.withLock { $0.generation }
        return cache.withLock { $0.generation == generation ? $0.bodies[name] : nil }
    }

    /// The body named `name` of the current model, rendered by `render` once per publication.
    /// With `limit`, the body is kept only while the publication's cache holds fewer bodies (the
    /// UPS pages: a few hundred at most, whatever the fleet), else rendered for this request alone.
    func cached(_ name: String, limit: Int = .max, _ render: (StatusModel) -> [UInt8]) -> [UInt8] {
        let (model, generation) = state.withLock { ($0.model, $0.generation) }
        if let body = cache.withLock({ $0.generation == generation ? $0.bodies[name] : nil }) { return body }
        let body = render(model)
        cache.withLock { cache in
            if cache.generation != generation { cache = Cache(generation: generation) }
            if cache.bodies.count < limit { cache.bodies[name] = body }
        }
        return body
    }
}
