package import WPTime
package import WPHistory
import WPLogging
import WPRuntime

/// One condition of a UPS or a server (on battery or not, one alarm's code, reachable or not):
/// what a hold gathers, and what the record of deliveries is kept by.
package struct ConditionKey: Hashable, Sendable, Comparable {
    package var server: String
    package var device: String
    /// The condition's first kind (`on_battery`), `alarm:<code>` for an alarm.
    package var condition: String

    package init(_ event: HistoryEvent) {
        server = event.server
        device = event.device ?? ""
        let kind = event.kind
        condition = kind.pair?.first == .alarmRaised ? "alarm:" + (event.code ?? "") : (kind.pair?.first ?? kind).rawValue
    }

    package init(server: String, device: String, condition: String) {
        self.server = server
        self.device = device
        self.condition = condition
    }

    package static func < (lhs: Self, rhs: Self) -> Bool {
        (lhs.server, lhs.device, lhs.condition) < (rhs.server, rhs.device, rhs.condition)
    }
}

/// The events of one condition gathered over the hold time, told as one message.
package struct HeldEvents: Sendable, Equatable {
    package var key: ConditionKey
    /// In the order they happened; never empty.
    package var events: [NotificationEvent]

    package var first: NotificationEvent { events[0] }
    package var last: NotificationEvent { events[events.count - 1] }
    /// Only what a start saw (the conditions the UPS was in when the exporter started).
    package var isAtStart: Bool { events.allSatisfy(\.event.atStart) }
}

/// Holds each condition's events for the hold time, then says which receivers each group goes
/// to. Pure state: the notifier calls it from its subscriber and its timer, with the time.
package struct NotificationRouter: Sendable {
    private let routes: [NotificationSettings.Route]
    private let kinds: [String: ReceiverKind]
    private let holdTime: Int64
    private var held: [ConditionKey: (events: [NotificationEvent], due: Int64, order: UInt64)] = [:]
    /// What the last publications' starts saw, not yet taken.
    private var atStart: [(group: HeldEvents, order: UInt64)] = []
    private var order: UInt64 = 0

    package init(_ settings: NotificationSettings) {
        routes = settings.routes
        kinds = Dictionary(settings.receivers.compactMap { receiver in
            ReceiverKind(rawValue: receiver.type).map { (receiver.name, $0) }
        }, uniquingKeysWith: { first, _ in first })
        // Whole seconds, rounded up: the events' times are.
        let (seconds, attoseconds) = settings.holdTime.components
        holdTime = max(0, seconds + (attoseconds > 0 ? 1 : 0))
    }

    /// Holds `events` (the exporter's own are not told), each with its condition's others. What
    /// a start sees is no change to wait on: it is due at once, on its own.
    package mutating func add(_ events: [NotificationEvent], now: Int64) {
        for notification in events where notification.event.kind.pair != nil {
            let key = ConditionKey(notification.event)
            if notification.event.atStart {
                order += 1
                atStart.append((HeldEvents(key: key, events: [notification]), order))
                continue
            }
            if var group = held[key] {
                group.events.append(notification)
                held[key] = group
            } else {
                order += 1
                held[key] = ([notification], now + holdTime, order)
            }
        }
    }

    /// The groups whose hold ended by `now`, in the order their first events came.
    package mutating func due(now: Int64) -> [HeldEvents] {
        let ready = held.filter { $0.value.due <= now }
        for (key, _) in ready { held[key] = nil }
        let groups = ready.map { (group: HeldEvents(key: $0.key, events: $0.value.events), order: $0.value.order) } + atStart
        atStart = []
        return groups.sorted { $0.order < $1.order }.map(\.group)
    }

    /// The events held.
    package var heldCount: Int { held.values.reduce(0) { $0 + $1.events.count } + atStart.count }

    /// Every group held, due or not (the notifier stopping).
    package mutating func flushAll() -> [HeldEvents] { due(now: .max) }

    /// The event receivers (not Uptime Kuma's) the routes send `group` to, in route order, each
    /// once; with `anyKind`, those whose routes take its UPS, server and site whatever the kind
    /// (what they were told of the condition follows the group even when this kind is not theirs).
    package func receivers(for group: HeldEvents, anyKind: Bool = false) -> [String] {
        var names: [String] = []
        for route in routes where Self.matches(route, group.events, anyKind: anyKind) {
            for name in route.receivers where kinds[name].map({ !$0.takesStatus }) == true && !names.contains(name) {
                names.append(name)
            }
        }
        return names
    }

    /// Whether `route` takes any of `events`: its kind listed (or none listed), its UPS, server
    /// and site among the route's (or none listed).
    static func matches(_ route: NotificationSettings.Route, _ events: [NotificationEvent], anyKind: Bool = false) -> Bool {
        events.contains { notification in
            let event = notification.event
            return (anyKind || route.events.isEmpty || route.events.contains(event.kind.rawValue))
                && matches(route, server: event.server, device: event.device, ups: notification.ups, site: notification.site)
        }
    }

    /// Whether `route` takes a UPS (or a server's event: `device` nil) of `server` and `site`.
    static func matches(_ route: NotificationSettings.Route, server: String, device: String?, ups: String?, site: String?) -> Bool {
        guard route.servers.isEmpty || route.servers.contains(server) else { return false }
        guard route.sites.isEmpty || site.map(route.sites.contains) == true else { return false }
        guard !route.ups.isEmpty else { return true }
        // A server's event concerns every UPS it serves: a route of some UPSs takes it.
        guard let device else { return true }
        return route.ups.contains(device) || ups.map(route.ups.contains) == true
    }
}

extension NotificationMessage {
    /// The message of a held group: its first event's, then what followed within the hold
    /// (at most five, then how many more), each with its local time.
    package init(_ group: HeldEvents, language: NotificationLanguage, zone: TimeZoneRules, keyword: String = "") {
        self.init(group.first, language: language, zone: zone)
        let chinese = language == .chinese
        let rest = group.events.dropFirst()
        for later in rest.prefix(5) {
            let kind = chinese ? later.event.kind.chinese : later.event.kind.english
            let seconds = later.event.time - group.first.event.time
            let after = chinese ? "\(seconds) 秒后" : "\(seconds) s later"
            lines.append((chinese ? "随后" : "Then", "\(kind), \(LogTimestamp.localText(later.event.time, zone)) (\(after))"))
        }
        if rest.count > 5 {
            lines.append((chinese ? "随后" : "Then", chinese ? "另有 \(rest.count - 5) 次变化" : "\(rest.count - 5) more changes"))
        }
        self.keyword = keyword
    }
}
