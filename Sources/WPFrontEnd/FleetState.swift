public import WPClient
public import WPCollector
public import WPEnergy
public import WPServer

/// What the fleet published: every server's latest readings, as one immutable value handed to
/// the subscribed front ends (``FleetPublishing/subscribe(_:)``), so they build what they
/// serve from it rather than reaching into pipelines when a request arrives.
///
/// A plain value: it holds what each server read and how its collections went, never a
/// collector, the energy meter or the store, so a front end built from it can be tested with a
/// value made by hand. Publications are numbered (``generation``); a subscriber is handed them
/// in that order and never an older one after a newer.
public struct FleetState<C: Clock>: Sendable where C.Duration == Duration {
    /// One server's part: its name (empty for the server of a `winpower`-only configuration),
    /// what it last read and how its collections went, as of the publication.
    public struct Server: Sendable {
        /// `servers[].name`; empty for the server of a `winpower`-only configuration.
        public var name: String
        /// The WinPower base URL, without credentials.
        public var target: String
        /// `server` and the entry's static labels, as the server's series carry them.
        public var labels: [SeriesLabel]
        /// The collection interval.
        public var interval: Duration
        /// How old a reading may be and still be served (``isStale(_:at:)``).
        public var stalenessWindow: Duration
        /// The prefix of its devices' energy keys (empty for the unnamed server).
        public var energyKeyPrefix: String
        /// Every device as last read, with when, and the outage ledger's records of each.
        public var devices: WinPowerCollector<C>.DeviceReadings
        /// What the last collections found.
        public var health: CollectorHealth
        /// When the last successful readout was taken, on the fleet's clock (`nil`: none yet).
        public var lastSuccess: C.Instant?
        /// The server's own `/metrics` snapshot (no `server` labels): what `/probe` serves.
        public var snapshot: MetricsSnapshot
        /// The energy totals served of its devices, by `device_id` (the meter's served totals,
        /// with each device's outage ledger).
        public var totals: [String: DeviceEnergy]
        /// The one name each device is served under, by `device_id`, unique in the fleet in any
        /// case: the NUT server's UPS name and the SNMP agent's context alike (`rack-a@host`,
        /// `community@rack-a`). A device without one (its configured name taken by another
        /// server's device) is served by neither.
        public var names: [String: String]
        /// The UPSs this server served before the start (kept in the data directory), while it
        /// has not collected since: listed under their names with no readings.
        public var remembered: [RememberedUPS]

        /// A server's part as given (a test's or an embedder's own value, or the publication's).
        public init(name: String, target: String, labels: [SeriesLabel] = [], interval: Duration,
                     stalenessWindow: Duration, energyKeyPrefix: String = "",
                     devices: WinPowerCollector<C>.DeviceReadings, health: CollectorHealth = CollectorHealth(),
                     lastSuccess: C.Instant? = nil, snapshot: MetricsSnapshot = .empty, totals: [String: DeviceEnergy] = [:],
                     names: [String: String] = [:], remembered: [RememberedUPS] = []) {
            self.name = name
            self.target = target
            self.labels = labels
            self.interval = interval
            self.stalenessWindow = stalenessWindow
            self.energyKeyPrefix = energyKeyPrefix
            self.devices = devices
            self.health = health
            self.lastSuccess = lastSuccess
            self.snapshot = snapshot
            self.totals = totals
            self.names = names
            self.remembered = remembered
        }

        /// How a device of this server is described to clients (NUT's `LIST UPS`): its alias
        /// (its id without one), its model in parentheses, and the server's name.
        public func description(of device: Device) -> String {
            let model = device.asset.model.map { " (\($0))" } ?? ""
            let place = name.isEmpty ? "" : " on \(name)"
            return (device.asset.alias ?? device.id) + model + place
        }

        /// Whether a reading taken at `readAt` is too old to serve at `now`: older than the
        /// staleness window (upsd's `MAXAGE`: one failed collection does not make a UPS stale).
        public func isStale(_ readAt: C.Instant, at now: C.Instant) -> Bool {
            readAt.duration(to: now) > stalenessWindow
        }

        /// How long ago the last successful readout was taken, at `now` (`nil`: none yet).
        public func sinceLastSuccess(at now: C.Instant) -> Duration? {
            lastSuccess.map { $0.duration(to: now) }
        }
    }

    /// A device's key, as the energy state keys it: the device id for the unnamed server,
    /// `server` + U+001F + id otherwise.
    public static func key(server: String, device: String) -> String {
        server.isEmpty ? device : EnergyKey.qualified(server: server, device: device)
    }

    /// The publication's number: each is one more than the one before it (the fleet's state
    /// before the first publication is 0).
    public var generation: UInt64
    /// When it was published, on the fleet's clock.
    public var publishedAt: C.Instant
    /// The servers in configuration order.
    public var servers: [Server]
    /// What `/metrics` serves of it.
    public var exposition: FleetExposition

    /// A state as given: generation 0 is the fleet before its first publication.
    public init(generation: UInt64 = 0, publishedAt: C.Instant, servers: [Server], exposition: FleetExposition) {
        self.generation = generation
        self.publishedAt = publishedAt
        self.servers = servers
        self.exposition = exposition
    }
}

/// A UPS its server served before the start, not read since: its name and description as
/// kept in the data directory.
public struct RememberedUPS: Sendable, Equatable {
    /// Its `device_id`.
    public var device: String
    /// The name it was served under.
    public var name: String
    /// Its description then (``FleetState/Server/description(of:)``).
    public var description: String

    /// A remembered UPS as kept in the data directory.
    public init(device: String, name: String, description: String) {
        self.device = device
        self.name = name
        self.description = description
    }
}

/// The exposition of a published state: the server of a `winpower`-only configuration's own
/// snapshot, or the merge of several servers' with its plain bodies listed as parts once per
/// merge.
public struct FleetExposition: Sendable {
    /// The `/metrics` snapshot, without the per-scrape families.
    public var snapshot: MetricsSnapshot
    /// A merged snapshot's plain bodies (text, OpenMetrics) as the merge listed them; `nil`
    /// for a single server's snapshot, whose bodies are whole.
    public var parts: (text: HTTPBodyParts, openMetrics: HTTPBodyParts)?

    /// An exposition of `snapshot`, with a merge's parts when it has them.
    public init(snapshot: MetricsSnapshot, parts: (text: HTTPBodyParts, openMetrics: HTTPBodyParts)? = nil) {
        self.snapshot = snapshot
        self.parts = parts
    }

    /// The plain body of ``snapshot`` in a format (`true`: OpenMetrics) as parts, when the
    /// merge listed them.
    public func bodyParts(openMetrics: Bool) -> HTTPBodyParts? {
        parts.map { openMetrics ? $0.openMetrics : $0.text }
    }
}

/// Where a front end gets the fleet's state: the state now, and every publication from now on.
/// The exporter's fleet publication is one; a test hands a front end its own.
public protocol FleetPublishing<C>: Sendable {
    /// The fleet's clock type (`ContinuousClock`, or a test's manual clock).
    associatedtype C: Clock where C.Duration == Duration
    /// The clock the publications' instants are on (readings' times, ``FleetState/publishedAt``):
    /// a front end judges staleness on it.
    var clock: C { get }
    /// The fleet as it is now, as a publication would hand it (a front end's state before the
    /// first publication).
    var current: FleetState<C> { get }
    /// Adds a subscriber, called with every publication from now on, on the publishing task:
    /// it does CPU work that finishes (building views, queueing notifications), never I/O.
    func subscribe(_ subscriber: @escaping @Sendable (FleetState<C>) -> Void)
}
