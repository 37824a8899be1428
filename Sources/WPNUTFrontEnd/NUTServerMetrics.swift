package import WPMetrics
package import WPNUT
package import WPServer
import WPServerMetrics

/// The NUT server on `/metrics`: connections now and by outcome, and logins now, read at each
/// scrape (its commands are counted by ``NUTServerMetrics/commands(in:)``).
package struct NUTServerMetrics: Collector {
    private let connections: ConnectionMetrics
    private let state: NUTServerState

    private static let loginsNow = MetricDescriptor(
        name: "winpower_exporter_nut_logins", help: "NUT clients logged into a UPS now (upsmon).", type: .gauge)

    package init(server: any Listener<LineServerStatistics>, state: NUTServerState) {
        connections = ConnectionMetrics(prefix: "winpower_exporter_nut_connections", protocolName: "NUT") {
            server.connectionStatistics
        }
        self.state = state
    }

    /// `winpower_exporter_nut_commands_total{command,result}`, registered in `registry`; both
    /// label values come from fixed sets (``NUTSession/commands`` or `other`; `OK` or an error code).
    package static func commands(in registry: MetricRegistry) throws(MetricsError) -> CounterVec {
        try registry.counterVec(name: "winpower_exporter_nut_commands_total",
                                help: "NUT commands by command and result (OK or the error code).",
                                labelNames: ["command", "result"])
    }

    package var descriptors: [MetricDescriptor] { connections.descriptors + [Self.loginsNow] }

    package func collect() -> [MetricFamily] {
        var families = connections.collect()
        if var logins = try? Self.loginsNow.makeFamily(), (try? logins.append(labelValues: [], value: Double(state.loginCount))) != nil {
            families.append(logins)
        }
        return families
    }
}
