import WPTime
package import WPConfig
import WPHistory
import WPRuntime

/// `notifications.*`: the journal's events told to chat robots, webhooks and status tools, the
/// section the notifier declares (docs/notifications.md).
package struct NotificationSettings: ConfigSectionSettings {
    /// One receiver (`notifications.receivers[]`): where messages go and how.
    package struct Receiver: ConfigListEntrySettings {
        /// Its name, used by routes, metrics and `/health`.
        package var name = ""
        /// `wecom`, `dingtalk`, `feishu`, `webhook` or `uptime_kuma`.
        package var type = "webhook"
        /// Its URL; it holds the receiver's token, so it is a secret.
        package var url: Secret?
        /// The signing secret (DingTalk, Feishu, webhook).
        package var secret: Secret?
        /// `en` or `zh-CN`; `nil`: `notifications.language`.
        package var language: String?
        /// A word the robot's keyword rule asks for, put before each title.
        package var keyword = ""

        /// Every key at its default.
        package init() {}

        /// The keys of one receiver.
        package static let fields: [ConfigSection<Receiver>.Field] = [
            .text("name", \.name, "Name of the receiver, used by routes, in metrics and in `/health` (letters, digits, `_`, `-`)."),
            .text("type", \.type, as: .choice(ReceiverKind.allCases.map(\.rawValue)), "Kind of receiver."),
            .secret("url", \.url, "URL of the receiver; it holds the receiver's token, so it is masked as a secret.", file: true),
            .secret("secret", \.secret, "Signing secret: DingTalk's and Feishu's `sign`, the webhook's HMAC key.", file: true),
            .text("language", \.language, as: .choice(["en", "zh-CN"]), "Language of its messages; unset: `notifications.language`."),
            .text("keyword", \.keyword, "Word put before each title, for a robot whose security rule asks for a keyword."),
        ]
    }

    /// One route (`notifications.routes[]`): which events go to which receivers.
    package struct Route: ConfigListEntrySettings {
        /// Event kinds; empty: every kind of a UPS or a server.
        package var events: [String] = []
        /// UPS names (as the status pages show them) or device ids; empty: every UPS.
        package var ups: [String] = []
        /// Server names; empty: every server.
        package var servers: [String] = []
        /// `site` labels; empty: every site.
        package var sites: [String] = []
        /// The receivers told.
        package var receivers: [String] = []

        /// Every key at its default.
        package init() {}

        /// The keys of one route.
        package static let fields: [ConfigSection<Route>.Field] = [
            .words("events", \.events, as: .choice(NotificationSettings.eventNames),
                   "Event kinds routed; empty: every event of a UPS or a server."),
            .words("ups", \.ups, "UPSs routed, by name or device id; empty: every UPS."),
            .words("servers", \.servers, "Servers routed, by name; empty: every server."),
            .words("sites", \.sites, "Sites routed, by `site` label; empty: every site."),
            .words("receivers", \.receivers, "Receivers told, by name."),
        ]
    }

    /// `notifications.receivers`.
    package var receivers: [Receiver] = []
    /// `notifications.routes`.
    package var routes: [Route] = []
    /// `notifications.language`.
    package var language = "en"
    /// `notifications.time_zone`: `local` (the system's) or a zone name.
    package var timeZone = "local"
    /// `notifications.hold_time`: how long an event waits for more of its condition.
    package var holdTime: Duration = .seconds(10)
    /// `notifications.queue_size`: messages each receiver keeps while it cannot take them.
    package var queueSize = 100
    /// `notifications.timeout`: the longest one delivery attempt takes.
    package var timeout: Duration = .seconds(10)
    /// `notifications.heartbeat_interval`: time between two status pushes to Uptime Kuma.
    package var heartbeatInterval: Duration = .seconds(60)

    /// Nothing configured: no receiver.
    package init() {}

    /// The event kinds a route may name: a UPS's and a server's (not the exporter's own).
    static let eventNames = HistoryEvent.Kind.allCases.filter { $0.pair != nil }.map(\.rawValue)

    /// The keys of `notifications.*`.
    package static let section = ConfigSection<NotificationSettings>("notifications", [
        .list("receivers", \.receivers, "Where messages go: chat robots, webhooks, Uptime Kuma (docs/notifications.md)."),
        .list("routes", \.routes, "Which events go to which receivers."),
        .text("language", \.language, as: .choice(["en", "zh-CN"]), "Language of the messages of a receiver that sets none."),
        .text("time_zone", \.timeZone, "Time zone of the times in messages: `local` (the system's) or a name (`Asia/Shanghai`, `UTC+08:00`)."),
        .duration("hold_time", \.holdTime,
                  "How long an event waits for the rest of its condition: a UPS on battery for less is one message, not two. `0s`: none."),
        .integer("queue_size", \.queueSize, in: 1...10_000, "Messages each receiver keeps while it cannot take them; past it the oldest is dropped."),
        .duration("timeout", \.timeout, "Longest one delivery attempt takes."),
        .duration("heartbeat_interval", \.heartbeatInterval, "Time between two status pushes to an Uptime Kuma receiver."),
    ])

    /// A receiver's name: 1–64 letters, digits, `_`, `-`.
    static func isName(_ text: String) -> Bool {
        !text.isEmpty && text.utf8.count <= 64
            && text.unicodeScalars.allSatisfy { $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || $0 == "_" || $0 == "-") }
    }

    /// The receivers, routes and time zone together, each problem naming its key.
    package func problems() -> [ConfigDiagnostic] {
        var problems: [ConfigDiagnostic] = []
        func problem(_ key: String, _ message: String) {
            problems.append(ConfigDiagnostic(key: "notifications." + key, source: nil, message: message))
        }
        var names: Set<String> = []
        for (index, receiver) in receivers.enumerated() {
            let key = "receivers[\(index)]"
            if receiver.name.isEmpty {
                problem(key + ".name", "is required")
            } else if !Self.isName(receiver.name) {
                problem(key + ".name", "\"\(receiver.name)\" must be 1–64 letters, digits, '_' or '-'")
            } else if !names.insert(receiver.name).inserted {
                problem(key + ".name", "\"\(receiver.name)\" names another receiver too; each name once")
            }
            guard let url = receiver.url?.reveal() else {
                problem(key + ".url", "is required (or url_file)")
                continue
            }
            if let reason = Self.urlProblem(url) { problem(key + ".url", reason) }
            let kind = ReceiverKind(rawValue: receiver.type)
            if receiver.secret != nil, kind == .wecom || kind == .uptimeKuma {
                problem(key + ".secret", "a \(receiver.type) receiver signs nothing; remove it (its token is in the URL)")
            }
        }
        for (index, route) in routes.enumerated() {
            let key = "routes[\(index)].receivers"
            if route.receivers.isEmpty { problem(key, "is required: the receivers the route tells") }
            for name in route.receivers where !receivers.contains(where: { $0.name == name }) {
                problem(key, "\"\(name)\" is no receiver; receivers: \(receivers.map(\.name).joined(separator: ", "))"
                        + Suggestion.hint(name, receivers.map(\.name)))
            }
        }
        if !receivers.isEmpty, routes.isEmpty {
            problem("routes", "is required with receivers: no event would reach them")
        }
        if timeout < .seconds(1) { problem("timeout", "\(DurationText.format(timeout)) is too short; must be at least 1s") }
        if heartbeatInterval < .seconds(1) {
            problem("heartbeat_interval", "\(DurationText.format(heartbeatInterval)) is too short; must be at least 1s")
        }
        if timeZone != "local", TimeZoneRules.named(timeZone) == nil {
            problem("time_zone", "\"\(timeZone)\" is no time zone; write local, a name such as Asia/Shanghai, or UTC+08:00")
        }
        return problems
    }

    /// Why `text` is not a receiver's URL, or nil: `http://` or `https://` with a host; the
    /// reason never quotes it (it holds a token).
    static func urlProblem(_ text: String) -> String? {
        let lower = text.lowercased()
        guard lower.hasPrefix("https://") || lower.hasPrefix("http://") else {
            return "must start with https:// or http:// (the value is masked: it holds the receiver's token)"
        }
        let rest = text.drop { $0 != "/" }.dropFirst(2)
        let authority = rest.prefix { $0 != "/" && $0 != "?" && $0 != "#" }
        guard !authority.isEmpty, !authority.contains(" ") else { return "has no host (the value is masked: it holds the receiver's token)" }
        return nil
    }
}
