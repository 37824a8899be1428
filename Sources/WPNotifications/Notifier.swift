import WPTime
import FoundationEssentials
import Synchronization
import WPClient
import WPCollector
import WPConfig
package import WPFrontEnd
import WPHistory
import WPHTTPClient
package import WPLogging
import WPMetrics
package import WPRuntime
package import WPStorage
package import WPWallClock

/// The notifier of `notifications.*` (docs/notifications.md): the journal's events, found in
/// each publication as the history writer finds them, held for the hold time so a flapping
/// condition is one message, routed to receivers, each delivered by its own queue. Collection,
/// `/metrics`, NUT and SNMP never wait for it: the subscriber does CPU work and queues.
///
/// What each receiver was last told of each condition is kept in the data directory (section
/// `notifications` of the state file): after a restart, what a UPS is in is told only when it
/// differs from what was told (no second "on battery" for one outage; the mains come back
/// while the exporter was down is told).
package final class Notifier<C: Clock>: FrontEnd where C.Duration == Duration {
    package let name = "the notifier"

    /// What `/health` shows under `notifications`.
    package struct Health: Encodable, Sendable {
        package var receivers: [ReceiverDelivery<C>.Status]
        /// Events waiting for the hold time to end.
        package var held: Int
    }

    /// The records section of the state file.
    static var recordSection: String { "notifications" }

    private struct Gathering {
        var tracker = HistoryEventTracker()
        var router: NotificationRouter
        /// What each receiver was last told of each condition (the kind), by receiver.
        var told: [String: [ConditionKey: HistoryEvent.Kind]]
        /// Each status receiver's last status and when it was pushed.
        var statuses: [String: (up: Bool, reason: String, pushed: C.Instant?)] = [:]
        /// The UPSs seen since the start, by server and device.
        var seen: Set<ConditionKey> = []
        /// When the last publication came, and how long a reading may go without one.
        var lastPublished: C.Instant?
        var staleAfter: Duration = .seconds(60)
    }

    private let settings: NotificationSettings
    private let deliveries: [ReceiverDelivery<C>]
    private let byName: [String: ReceiverDelivery<C>]
    private let zone: TimeZoneRules
    private let clock: C
    private let wallClock: WallClock
    /// The exporter's front ends now: the battery health meter's verdicts are events too.
    private let frontEnds: @Sendable () -> [any FrontEnd]
    private let sections: StateSections?
    private let gathering: Mutex<Gathering>
    /// The start of the monotonic seconds holds are timed in (a wall clock set back does not
    /// hold a message for an hour).
    private let base: C.Instant

    /// The notifier of `context.configuration`'s `notifications.*`, or `nil` without receivers.
    ///
    /// - Throws: ``FrontEndError/configuration(_:)`` for a receiver's URL the client cannot use;
    ///   ``FrontEndError/metrics(_:)`` when its metrics cannot be registered.
    package static func make(_ context: FrontEndContext<C>) throws(FrontEndError) -> Notifier? {
        let settings = context.configuration[section: NotificationSettings.self]
        guard !settings.receivers.isEmpty else { return nil }
        let client = HTTPClient(configuration: HTTPClient.Configuration(userAgent: "wpexporter/\(context.version)", maxBodyBytes: 1 << 20))
        let counters: DeliveryCounters
        do throws(MetricsError) {
            counters = try DeliveryCounters(context.registry)
        } catch {
            throw .metrics(error)
        }
        return try Notifier(settings: settings, transport: client, clock: context.clock, wallClock: context.wallClock,
                            logger: context.logger.component("notifications"), counters: counters, sections: context.sections,
                            publication: context.publication, frontEnds: context.frontEnds)
    }

    /// A notifier of `settings` sending with `transport`, told what `publication` publishes.
    package init(settings: NotificationSettings, transport: any NotificationTransport, clock: C,
                 wallClock: WallClock, logger: WPLogger, counters: DeliveryCounters?,
                 sections: StateSections?, publication: (any FleetPublishing<C>)?,
                 frontEnds: @escaping @Sendable () -> [any FrontEnd] = { [] },
                 backoff: Backoff = Backoff(initial: .seconds(2), maximum: .seconds(300))) throws(FrontEndError) {
        self.settings = settings
        self.frontEnds = frontEnds
        self.clock = clock
        self.wallClock = wallClock
        self.sections = sections
        base = clock.now
        zone = settings.timeZone == "local" ? .system() : TimeZoneRules.named(settings.timeZone) ?? .fixed(0)
        // A receiver no longer configured is forgotten (its records go with the next save).
        let names = Set(settings.receivers.map(\.name))
        let kept = Self.told(from: sections?.records(Self.recordSection) ?? [])
        let told = kept.filter { names.contains($0.key) }
        if told != kept { sections?.replace(Self.recordSection, with: Self.records(told)) }
        gathering = Mutex(Gathering(router: NotificationRouter(settings), told: told))
        var deliveries: [ReceiverDelivery<C>] = []
        let settle = SettleBox()
        for (index, receiver) in settings.receivers.enumerated() {
            let key = "notifications.receivers[\(index)]"
            guard let kind = ReceiverKind(rawValue: receiver.type) else {
                throw .configuration("\(key).type: \"\(receiver.type)\" is no receiver type")
            }
            guard let text = receiver.url?.reveal(), NotificationSettings.urlProblem(text) == nil, let url = URL(string: text) else {
                throw .configuration("\(key).url: not a URL the client can use (the value is masked: it holds the receiver's token)")
            }
            let language = NotificationLanguage(rawValue: receiver.language ?? settings.language) ?? .english
            let resolved = ResolvedReceiver(name: receiver.name, kind: kind, url: url, secret: receiver.secret?.reveal(),
                                            language: language, keyword: receiver.keyword)
            deliveries.append(ReceiverDelivery(receiver: resolved, capacity: settings.queueSize, transport: transport, clock: clock,
                                               wallClock: wallClock, timeout: settings.timeout, logger: logger, counters: counters,
                                               backoff: backoff, settled: { item, delivered in settle.notifier?.settled(item, receiver: receiver.name, delivered: delivered) }))
        }
        self.deliveries = deliveries
        byName = Dictionary(deliveries.map { ($0.receiver.name, $0) }, uniquingKeysWith: { first, _ in first })
        settle.notifier = self
        publication?.subscribe { [weak self] state in self?.published(state) }
    }

    /// Lets the deliveries tell the notifier what they settled, without a cycle at init.
    private final class SettleBox: @unchecked Sendable {
        // Set once in init, before any delivery runs; read only after.
        weak var notifier: Notifier?
    }

    package var health: FrontEndHealth? {
        FrontEndHealth(key: "notifications", value: Health(receivers: deliveries.map(\.status),
                                                           held: gathering.withLock { $0.router.heldCount }))
    }

    /// Each receiver's status now.
    package var statuses: [ReceiverDelivery<C>.Status] { deliveries.map(\.status) }

    /// Runs each receiver's delivery and, every second, ends the holds that are due and pushes
    /// the status receivers' heartbeats; until cancelled.
    package func run() async throws {
        await withTaskGroup(of: Void.self) { group in
            for delivery in deliveries { group.addTask { await delivery.run() } }
            group.addTask { [self] in
                while !Task.isCancelled {
                    do {
                        try await clock.sleep(until: clock.now.advanced(by: .seconds(1)), tolerance: nil)
                    } catch {
                        return
                    }
                    tick()
                }
            }
            await group.waitForAll()
        }
        // Held for their hold time when the notifier stopped: not sent, counted.
        let held = gathering.withLock { gathering in gathering.router.flushAll().map { gathering.router.receivers(for: $0) } }
        for delivery in deliveries {
            delivery.countDropped(held.filter { $0.contains(delivery.receiver.name) }.count)
        }
    }

    /// Ends the holds due now and pushes the heartbeats due.
    package func tick() {
        let now = monotonicSeconds
        let (groups, beats) = gathering.withLock { gathering in
            (gathering.router.due(now: now), heartbeats(&gathering, force: false))
        }
        send(groups)
        for (delivery, item) in beats { delivery.enqueue(item) }
    }

    /// The events of `state` held; the holds due sent; each status receiver's status pushed
    /// when it changed.
    package func published(_ state: FleetState<C>) {
        let wall = wallClock.unixSeconds
        let now = monotonicSeconds
        let names = Self.names(in: state)
        let (groups, beats) = gathering.withLock { gathering in
            gathering.lastPublished = clock.now
            gathering.staleAfter = max(.seconds(60), state.servers.map(\.stalenessWindow).max() ?? .zero)
            var events = gathering.tracker.events(in: state, now: wall, battery: frontEnds().batteryHealthMeter)
            events += Self.endedWhileAway(state, events: events, gathering: &gathering, now: wall)
            let notifications = events.map { event in
                let place = names[event.server]
                return NotificationEvent(event, ups: event.device.flatMap { place?.ups[$0] }, site: place?.site)
            }
            gathering.router.add(notifications, now: now)
            updateStatuses(&gathering, state: state, names: names)
            return (gathering.router.due(now: now), heartbeats(&gathering, force: false))
        }
        send(groups)
        for (delivery, item) in beats { delivery.enqueue(item) }
    }

    /// Queues each group to its receivers, but a start's view of a condition to a receiver
    /// already told it.
    private func send(_ groups: [HeldEvents]) {
        guard !groups.isEmpty else { return }
        var items: [(ReceiverDelivery<C>, ReceiverDelivery<C>.Item)] = []
        gathering.withLock { gathering in
            for group in groups {
                let routed = gathering.router.receivers(for: group)
                // A receiver that takes this UPS but not this kind: what it knows of the condition
                // follows anyway, so a later start compares with the truth (a fault told, its end
                // not routed, a new fault at the next start is still told).
                for name in gathering.router.receivers(for: group, anyKind: true) where !routed.contains(name) {
                    record(&gathering, receiver: name, key: group.key, kind: group.last.event.kind)
                }
                for name in routed {
                    guard let delivery = byName[name] else { continue }
                    let told = gathering.told[name]?[group.key]
                    if group.isAtStart {
                        let kind = group.last.event.kind
                        // Told already (a restart during an outage), or a normal state never told otherwise.
                        if told == kind || (told == nil && kind.isNormal) { continue }
                    }
                    let receiver = delivery.receiver
                    let message = NotificationMessage(group, language: receiver.language, zone: zone, keyword: receiver.keyword)
                    items.append((delivery, .init(payload: .event(group.first, message), settles: (group.key, group.last.event.kind))))
                }
            }
        }
        for (delivery, item) in items { delivery.enqueue(item) }
    }

    /// Records what `receiver` was told of the item's condition once it took it (a message
    /// refused or dropped was not told: the next start tells the condition again).
    private func settled(_ item: ReceiverDelivery<C>.Item, receiver: String, delivered: Bool) {
        guard delivered, let (key, kind) = item.settles else { return }
        gathering.withLock { record(&$0, receiver: receiver, key: key, kind: kind) }
    }

    /// Notes that `receiver` knows `key` is in `kind` (a normal kind is the same as nothing told:
    /// the record goes), and keeps the records in the state file's section. Under the lock, so
    /// the section always holds the latest records (it is memory; the save writes it).
    private func record(_ gathering: inout Gathering, receiver: String, key: ConditionKey, kind: HistoryEvent.Kind) {
        let before = gathering.told[receiver]?[key]
        guard before != (kind.isNormal ? nil : kind) else { return }
        gathering.told[receiver, default: [:]][key] = kind.isNormal ? nil : kind
        sections?.replace(Self.recordSection, with: Self.records(gathering.told))
    }

    /// Seconds since the notifier was made, on its monotonic clock.
    private var monotonicSeconds: Int64 { base.duration(to: clock.now).components.seconds }

    /// The ends of conditions a start cannot see (the tracker gives an alarm or a self-test only
    /// while it lasts): for each UPS seen for the first time, an alarm or a test some receiver was
    /// told of that is no longer there ended while the exporter was away.
    private static func endedWhileAway(_ state: FleetState<C>, events: [HistoryEvent], gathering: inout Gathering,
                                       now: Int64) -> [HistoryEvent] {
        var ended: [HistoryEvent] = []
        for server in state.servers {
            for reading in server.devices.readings {
                let ups = ConditionKey(server: server.name, device: reading.device.id, condition: "")
                guard gathering.seen.insert(ups).inserted else { continue }
                let present = Set(events.filter { $0.server == server.name && $0.device == reading.device.id }.map(ConditionKey.init))
                var told: [ConditionKey: HistoryEvent.Kind] = [:]
                for records in gathering.told.values {
                    for (key, kind) in records where key.server == ups.server && key.device == ups.device { told[key] = kind }
                }
                for (key, kind) in told.sorted(by: { $0.key < $1.key }) where !present.contains(key) {
                    let end: HistoryEvent.Kind? = switch kind {
                    case .alarmRaised: .alarmCleared
                    case .selfTestStarted: .selfTestFinished
                    default: nil
                    }
                    guard let end else { continue }
                    let code = key.condition.hasPrefix("alarm:") ? String(key.condition.dropFirst("alarm:".count)) : nil
                    ended.append(HistoryEvent(time: now, server: server.name, device: reading.device.id, kind: end, code: code,
                                              detail: server.description(of: reading.device), atStart: true))
                }
            }
        }
        return ended
    }

    /// The state file's records of what each receiver was told: receiver, server, device,
    /// condition, kind.
    static func records(_ told: [String: [ConditionKey: HistoryEvent.Kind]]) -> [[String]] {
        told.keys.sorted().flatMap { name in
            (told[name] ?? [:]).sorted { $0.key < $1.key }.map { [name, $0.key.server, $0.key.device, $0.key.condition, $0.value.rawValue] }
        }
    }

    /// What the state file's records say each receiver was told.
    static func told(from records: [[String]]) -> [String: [ConditionKey: HistoryEvent.Kind]] {
        var told: [String: [ConditionKey: HistoryEvent.Kind]] = [:]
        for record in records where record.count == 5 {
            guard let kind = HistoryEvent.Kind(rawValue: record[4]) else { continue }
            told[record[0], default: [:]][ConditionKey(server: record[1], device: record[2], condition: record[3])] = kind
        }
        return told
    }

    /// Each server's site and its UPSs' names (alias, else model, else id), by server name.
    static func names(in state: FleetState<C>) -> [String: (site: String?, ups: [String: String])] {
        var names: [String: (site: String?, ups: [String: String])] = [:]
        for server in state.servers {
            let site = server.labels.first { $0.name == "site" }?.value
            var ups: [String: String] = [:]
            for reading in server.devices.readings {
                ups[reading.device.id] = reading.device.displayName
            }
            names[server.name] = (site, ups)
        }
        return names
    }

    /// Each status receiver's status from `state`: down, with the reasons, while a UPS its
    /// routes take is on battery, low, in fault, disconnected or stale, or its server
    /// unreachable.
    private func updateStatuses(_ gathering: inout Gathering, state: FleetState<C>,
                                names: [String: (site: String?, ups: [String: String])]) {
        for delivery in deliveries where delivery.receiver.kind.takesStatus {
            let routes = settings.routes.filter { $0.receivers.contains(delivery.receiver.name) }
            var reasons: [String] = []
            var watched = 0
            for server in state.servers {
                let site = names[server.name]?.site
                let serverRoutes = routes.filter {
                    NotificationRouter.matches($0, server: server.name, device: nil, ups: nil, site: site)
                }
                guard !serverRoutes.isEmpty else { continue }
                func counts(_ kind: HistoryEvent.Kind, _ route: NotificationSettings.Route) -> Bool {
                    route.events.isEmpty || route.events.contains(kind.rawValue)
                }
                if server.health.lastFinished != nil, !server.health.winPowerReachable || !server.health.authenticated,
                   serverRoutes.contains(where: { counts(.serverUnreachable, $0) || counts(.loginRefused, $0) }) {
                    reasons.append("\(server.name.isEmpty ? "WinPower" : server.name): " + (server.health.winPowerReachable ? "login refused" : "unreachable"))
                }
                for reading in server.devices.readings {
                    let device = reading.device
                    let ups = names[server.name]?.ups[device.id] ?? device.id
                    let upsRoutes = serverRoutes.filter {
                        NotificationRouter.matches($0, server: server.name, device: device.id, ups: ups, site: site)
                    }
                    guard !upsRoutes.isEmpty else { continue }
                    watched += 1
                    let conditions = HistoryEventTracker.conditions(device, stale: server.isStale(reading.readAt, at: state.publishedAt))
                    var troubles: [HistoryEvent.Kind] = []
                    if conditions.power == true { troubles.append(.onBattery) }
                    if conditions.low { troubles.append(.lowBattery) }
                    if conditions.fault { troubles.append(.fault) }
                    if conditions.disconnected { troubles.append(.disconnected) }
                    if conditions.stale { troubles.append(.stale) }
                    let counted = troubles.filter { kind in upsRoutes.contains { counts(kind, $0) } }
                    if !counted.isEmpty { reasons.append("\(ups): " + counted.map(\.english).joined(separator: ", ")) }
                }
            }
            let up = reasons.isEmpty
            let reason = up ? "\(watched) UPS on mains" : reasons.joined(separator: "; ")
            let previous = gathering.statuses[delivery.receiver.name]
            if previous?.up != up || previous?.reason != reason {
                gathering.statuses[delivery.receiver.name] = (up, reason, nil)
            }
        }
    }

    /// The status pushes due: a status never pushed or changed, or one last pushed a heartbeat
    /// interval ago.
    private func heartbeats(_ gathering: inout Gathering, force: Bool) -> [(ReceiverDelivery<C>, ReceiverDelivery<C>.Item)] {
        var due: [(ReceiverDelivery<C>, ReceiverDelivery<C>.Item)] = []
        let now = clock.now
        // No publication for longer than a reading may go stale: collection is stuck, which is
        // no "up" (said once, then at each heartbeat).
        if let last = gathering.lastPublished, last.duration(to: now) > gathering.staleAfter {
            let reason = "no collection for \(last.duration(to: now).components.seconds) s"
            for name in gathering.statuses.keys where gathering.statuses[name]?.up == true {
                gathering.statuses[name] = (false, reason, nil)
            }
        }
        for (name, status) in gathering.statuses.sorted(by: { $0.key < $1.key }) {
            guard let delivery = byName[name] else { continue }
            if !force, let pushed = status.pushed, pushed.duration(to: now) < settings.heartbeatInterval { continue }
            gathering.statuses[name]?.pushed = now
            due.append((delivery, .init(payload: .status(up: status.up, reason: status.reason))))
        }
        return due
    }
}

extension FrontEndFactory {
    /// The notifier of `notifications.*` (off without receivers); made again when
    /// `notifications.*` changes.
    package static var notifications: FrontEndFactory {
        FrontEndFactory(NotificationSettings.self) { context throws(FrontEndError) in
            try Notifier<C>.make(context)
        }
    }
}
