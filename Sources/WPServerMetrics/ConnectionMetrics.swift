public import WPMetrics
public import WPServer

/// A server's connections on `/metrics`, read at each scrape from its
/// `ConnectionStatistics` (`WPHTTPServer.statistics`, or a
/// `LineServer`'s `connectionStatistics`): `<prefix>_open` (a gauge) and
/// `<prefix>_total{outcome}` with the outcomes `accepted`, `refused` (the cap reached and no
/// connection could make room), `evicted` (closed to make room for a new one) and
/// `closed_limits` (closed by a timeout or a size limit).
///
/// ```swift
/// try registry.register(ConnectionMetrics(prefix: "myservice_http_connections", protocolName: "HTTP") {
///     server.statistics
/// })
/// ```
public struct ConnectionMetrics: Collector {
    private let open: MetricDescriptor
    private let outcomes: MetricDescriptor
    private let statistics: @Sendable () -> ConnectionStatistics

    /// Creates the collector of one server's connections.
    ///
    /// - Parameters:
    ///   - prefix: The families' name prefix, e.g. `myservice_http_connections`.
    ///   - protocolName: How the help texts name the connections (`HTTP`, `NUT`).
    ///   - statistics: The server's statistics now; called at each scrape, must be quick.
    public init(prefix: String, protocolName: String, statistics: @escaping @Sendable () -> ConnectionStatistics) {
        open = MetricDescriptor(name: prefix + "_open", help: "\(protocolName) connections open now.", type: .gauge)
        outcomes = MetricDescriptor(
            name: prefix + "_total",
            help: "\(protocolName) connections by outcome: accepted, refused (the cap reached, no connection could make "
                + "room), evicted (closed to make room), closed_limits (closed by a timeout or a size limit).",
            type: .counter, labelNames: ["outcome"])
        self.statistics = statistics
    }

    /// The two families: `<prefix>_open` and `<prefix>_total`.
    public var descriptors: [MetricDescriptor] { [open, outcomes] }

    /// Both families with the server's counts now.
    public func collect() -> [MetricFamily] {
        let now = statistics()
        var families: [MetricFamily] = []
        // The label counts match the descriptors: the error paths are unreachable.
        if var family = try? open.makeFamily(), (try? family.append(labelValues: [], value: Double(now.open))) != nil {
            families.append(family)
        }
        if var family = try? outcomes.makeFamily(capacity: 4) {
            for (outcome, count) in [("accepted", now.accepted), ("refused", now.refused), ("evicted", now.evicted),
                                     ("closed_limits", now.closedByLimits)] {
                try? family.append(labelValues: [outcome], value: Double(count))
            }
            families.append(family)
        }
        return families
    }
}
