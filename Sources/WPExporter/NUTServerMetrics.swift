import WPMetrics
import WPNUT
import WPServer

/// The NUT server on `/metrics`: connections now and by outcome, and logins now, read at each
/// scrape (its commands are counted by ``NUTServerMetrics/commands(in:)``).
package struct NUTServerMetrics: Collector {
    private let server: LineServer<NUTProtocol>
    private let state: NUTServerState

    private static let connections = MetricDescriptor(
        name: "winpower_exporter_nut_connections_open", help: "NUT connections open now.", type: .gauge)
    private static let outcomes = MetricDescriptor(
        name: "winpower_exporter_nut_connections_total",
        help: "NUT connections by outcome: accepted, refused (the cap reached, every connection logged in), "
            + "evicted (closed to make room), closed_limits (a line too long or late, idle, a reply not taken).",
        type: .counter, labelNames: ["outcome"])
    private static let loginsNow = MetricDescriptor(
        name: "winpower_exporter_nut_logins", help: "NUT clients logged into a UPS now (upsmon).", type: .gauge)

    package init(server: LineServer<NUTProtocol>, state: NUTServerState) {
        self.server = server
        self.state = state
    }

    /// `winpower_exporter_nut_commands_total{command,result}`, registered in `registry`; both
    /// label values come from fixed sets (``NUTSession/commands`` or `other`; `OK` or an error code).
    package static func commands(in registry: MetricRegistry) throws(MetricsError) -> CounterVec {
        try registry.counterVec(name: "winpower_exporter_nut_commands_total",
                                help: "NUT commands by command and result (OK or the error code).",
                                labelNames: ["command", "result"])
    }

    package var descriptors: [MetricDescriptor] { [Self.connections, Self.outcomes, Self.loginsNow] }

    package func collect() -> [MetricFamily] {
        let now = server.statistics
        var families: [MetricFamily] = []
        if var open = try? Self.connections.makeFamily(), (try? open.append(labelValues: [], value: Double(now.open))) != nil {
            families.append(open)
        }
        if var outcomes = try? Self.outcomes.makeFamily(capacity: 4) {
            for (outcome, count) in [("accepted", now.accepted), ("refused", now.refused), ("evicted", now.evicted),
                                     ("closed_limits", now.timedOutOrTooLong)] {
                try? outcomes.append(labelValues: [outcome], value: Double(count))
            }
            families.append(outcomes)
        }
        if var logins = try? Self.loginsNow.makeFamily(), (try? logins.append(labelValues: [], value: Double(state.loginCount))) != nil {
            families.append(logins)
        }
        return families
    }
}
