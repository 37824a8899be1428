package import FoundationEssentials
public import WPMetrics
public import WPServer
package import WPEnergy
package import WPClient

/// One way the exporter serves the fleet: `/metrics` and the HTTP endpoints, the NUT server,
/// the SNMP agent with its notifications, the push loop, or an embedder's own.
///
/// Every front end has the same shape: a ``FrontEndFactory`` makes it from a
/// ``FrontEndContext`` (its configuration section and what the fleet publishes, a
/// ``FleetPublishing`` it subscribes to when it acts on each collection), it registers its own
/// metrics while it is made, and then ``run()`` serves until cancelled. The exporter lists the
/// factories once (its composition) and runs the front ends alike: each started in turn and
/// waited for (``ready()``) so a port that cannot be bound stops the start naming its key.
/// docs/architecture.md ("Adding a front end") walks through one.
public protocol FrontEnd: Sendable {
    /// What it is, in log records ("the NUT server").
    var name: String { get }
    /// Its section of `/health` as it is now (`nut`, `snmp`), or `nil` when it shows none.
    var health: FrontEndHealth? { get }
    /// Routes it serves on the exporter's HTTP listener (the status pages' `/status`), or `nil`.
    /// Read once, from the front ends made at start: a front end with routes is one a reload
    /// does not make again (its factory declares no settings).
    var routes: FrontEndRoutes? { get }
    /// Serves until the task is cancelled (binding first, when it listens).
    func run() async throws
    /// Returns once it serves, while ``run()`` runs; throws what keeps it from serving, naming
    /// its configuration key (a ``FrontEndError``; the HTTP listener's `ServerError.bind`
    /// names its address).
    func ready() async throws
}

extension FrontEnd {
    /// No section of `/health`.
    public var health: FrontEndHealth? { nil }
    /// No routes.
    public var routes: FrontEndRoutes? { nil }
    /// Serves as soon as ``run()`` starts (a front end that binds nothing).
    public func ready() async throws {}

    /// Returns once the calling task is cancelled: the `run()` of a front end whose work is done
    /// in its subscriber or on requests (it owns nothing to serve), or the wait before its
    /// last act.
    public func untilCancelled() async {
        let (stream, _) = AsyncStream<Void>.makeStream()
        for await _ in stream {}
    }
}

/// Routes a front end adds to the exporter's HTTP listener, behind its web configuration (TLS,
/// basic authentication), counted in `winpower_exporter_requests_total` as the exporter's own.
public struct FrontEndRoutes: Sendable {
    /// A line of the listener's index page: a link and what it leads to.
    public struct Link: Sendable, Equatable {
        /// The path linked (`/status`).
        public var path: String
        /// The link's words (`Status`).
        public var title: String
        /// What follows the link, in parentheses (`every UPS, attention first`); `nil`: nothing.
        public var detail: String?

        /// A link to `path` reading `title`, then `detail`.
        public init(path: String, title: String, detail: String? = nil) {
            self.path = path
            self.title = title
            self.detail = detail
        }
    }

    /// Its line of the index page; `nil`: none.
    public var link: Link?
    /// Adds the routes to the listener's router.
    public var register: @Sendable (inout WPRouter) -> Void

    /// Routes `register` adds, linked from the index page by `link`.
    public init(link: Link? = nil, register: @escaping @Sendable (inout WPRouter) -> Void) {
        self.link = link
        self.register = register
    }
}

/// What the exporter tells the front ends that ask (``ConfigurationObserving``) about its
/// configuration: a reload applied (its summary), a reload refused (why), or this front end about
/// to be stopped by a reload (for a successor, or for none: the reload turned it off).
package enum ConfigurationEvent: Sendable, Equatable {
    case reloaded(summary: String)
    case refused(reason: String)
    case replaced(bySuccessor: Bool)
}

/// A front end that is told of reloads (the history writer journals them).
package protocol ConfigurationObserving: Sendable {
    func configuration(_ event: ConfigurationEvent)
}

/// The front end that prices the fleet's energy (`energy.tariffs`): others find it among
/// ``FrontEndContext/frontEnds`` and show its costs (the status pages, MQTT).
package protocol EnergyCostSource: Sendable {
    /// Its meter: the costs by device key (`energyKeyPrefix` + device id) and period.
    var meter: EnergyCostMeter { get }
}

extension Sequence where Element == any FrontEnd {
    /// The meter of the front end among these that prices the energy (``EnergyCostSource``),
    /// or nil when `energy.tariffs` makes none.
    package var energyCostMeter: EnergyCostMeter? {
        lazy.compactMap { ($0 as? any EnergyCostSource)?.meter }.first
    }
}

/// The front end that measures the batteries' health (`battery.*`): others find it among
/// ``FrontEndContext/frontEnds`` and show its verdicts (the status pages, the history's events).
package protocol BatteryHealthSource: Sendable {
    /// Its meter: the measurements by device key (`energyKeyPrefix` + device id).
    var batteryHealth: BatteryHealthMeter { get }
}

extension Sequence where Element == any FrontEnd {
    /// The meter of the front end among these that measures the batteries
    /// (``BatteryHealthSource``), or nil when none does.
    package var batteryHealthMeter: BatteryHealthMeter? {
        lazy.compactMap { ($0 as? any BatteryHealthSource)?.batteryHealth }.first
    }
}

extension BatteryHealthMeter {
    /// The verdict of `device` (energy key `key`), its measurements counted from its battery's
    /// configured installation day; `nil` without a measurement kept.
    package func verdict(_ key: String, of device: Device) -> BatteryHealthVerdict? {
        verdict(key, installed: device.battery?.installedDate)
    }

    /// Whether `device`'s battery needs replacing by its measured health (NUT's `RB`, SNMP's
    /// `upsAlarmBatteryBad`, Home Assistant's problem): false without enough data.
    package func needsReplacement(_ key: String, of device: Device) -> Bool {
        verdict(key, of: device)?.isLow ?? false
    }

    /// Whether `device`'s self-test is overdue at `now` (its last one began at `lastTest`), by
    /// `battery.self_test_days` or its own `autoTestPeriod`; `nil` for a UPS the meter never saw.
    package func selfTestOverdue(_ key: String, of device: Device, lastTest: Date?, now: Date) -> Bool? {
        guard let since = watchedSince(key) else { return nil }
        return BatteryHealthVerdict.testOverdue(lastTest: lastTest, watchedSince: since, installed: device.battery?.installedDate,
                                                interval: rules.selfTestInterval(autoTestPeriodDays: device.setting.autoTestPeriod),
                                                now: now)
    }
}

/// A front end's section of `/health`: the key it appears under and what it shows there (any
/// value encoding to JSON).
public struct FrontEndHealth: Sendable {
    /// The section's key, the front end's configuration section (`nut`, `snmp`).
    public var key: String
    /// What it shows under ``key``: any value encoding to JSON.
    public var value: any Encodable & Sendable

    /// A section `key` showing `value`.
    public init(key: String, value: any Encodable & Sendable) {
        self.key = key
        self.value = value
    }
}

/// A report of `/health` with the front ends' sections beside its own fields, each under its
/// key (keys the report's own fields never use).
package struct HealthDocument<Report: Encodable>: Encodable {
    package var report: Report
    package var sections: [FrontEndHealth]

    package init(report: Report, sections: [FrontEndHealth]) {
        self.report = report
        self.sections = sections
    }

    package func encode(to encoder: any Encoder) throws {
        try report.encode(to: encoder)
        var container = encoder.container(keyedBy: SectionKey.self)
        for section in sections {
            try container.encode(section.value, forKey: SectionKey(stringValue: section.key))
        }
    }

    private struct SectionKey: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }
}

/// Why a front end cannot be built or cannot serve. The exporter reports it as the error of
/// the front end's configuration section (`ExporterError.frontEnd(section:reason:)`, or
/// `.metrics`).
public enum FrontEndError: Error, Sendable, CustomStringConvertible {
    /// Its configuration cannot be served: the reason names the key (`nut.users_file: …`,
    /// `snmp.listen: …`).
    case configuration(String)
    /// Its own metrics could not be registered (fixed names: not expected).
    case metrics(MetricsError)

    /// The reason, naming the key, as the exporter reports it.
    public var description: String {
        switch self {
        case .configuration(let reason): reason
        case .metrics(let error): "registering the exporter's own metrics: \(error)"
        }
    }
}
