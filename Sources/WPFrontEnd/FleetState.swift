package import WPCollector
package import WPServer

/// What the fleet published: every server's latest readings, as one immutable value handed to
/// the subscribed front ends (``FleetPublishing/subscribe(_:)``), so they build what they
/// serve from it rather than reaching into pipelines when a request arrives.
package struct FleetState<C: Clock>: Sendable where C.Duration == Duration {
    /// One server's part: its name (empty for the server of a `winpower`-only configuration),
    /// its collector (its configuration and clock judge staleness) and what it last read.
    package struct Server: Sendable {
        package var name: String
        package var collector: WinPowerCollector<C>
        package var devices: WinPowerCollector<C>.DeviceReadings

        package init(name: String, collector: WinPowerCollector<C>, devices: WinPowerCollector<C>.DeviceReadings) {
            self.name = name
            self.collector = collector
            self.devices = devices
        }

        /// The server `name` as its collector is now.
        package init(name: String, collector: WinPowerCollector<C>) {
            self.init(name: name, collector: collector, devices: collector.devices)
        }
    }

    /// The servers in configuration order.
    package var servers: [Server]
    /// What `/metrics` serves of it.
    package var exposition: FleetExposition

    package init(servers: [Server], exposition: FleetExposition) {
        self.servers = servers
        self.exposition = exposition
    }
}

/// The exposition of a published state: the server of a `winpower`-only configuration's own
/// snapshot, or the merge of several servers' with its plain bodies listed as parts once per
/// merge.
package struct FleetExposition: Sendable {
    /// The `/metrics` snapshot, without the per-scrape families.
    package var snapshot: MetricsSnapshot
    /// A merged snapshot's plain bodies (text, OpenMetrics) as the merge listed them; `nil`
    /// for a single server's snapshot, whose bodies are whole.
    package var parts: (text: HTTPBodyParts, openMetrics: HTTPBodyParts)?

    package init(snapshot: MetricsSnapshot, parts: (text: HTTPBodyParts, openMetrics: HTTPBodyParts)? = nil) {
        self.snapshot = snapshot
        self.parts = parts
    }

    /// The plain body of ``snapshot`` in a format (`true`: OpenMetrics) as parts, when the
    /// merge listed them.
    package func bodyParts(openMetrics: Bool) -> HTTPBodyParts? {
        parts.map { openMetrics ? $0.openMetrics : $0.text }
    }
}

/// Where a front end gets the fleet's state: the state now, and every publication from now on.
/// The exporter's fleet publication is one; a test hands a front end its own.
package protocol FleetPublishing<C>: Sendable {
    associatedtype C: Clock where C.Duration == Duration
    /// The fleet as it is now, as a publication would hand it (a front end's state before the
    /// first publication).
    var current: FleetState<C> { get }
    /// Adds a subscriber, called with every publication from now on, on the publishing task:
    /// it does CPU work that finishes (building views, queueing notifications), never I/O.
    func subscribe(_ subscriber: @escaping @Sendable (FleetState<C>) -> Void)
}
