import FoundationEssentials
public import WPConfig
public import WPLogging
public import WPMetrics
public import WPServer
public import WPStorage
public import WPWallClock

/// Everything a front end is made from, the same for every front end: the configuration, the
/// fleet's publications, a registry of its own, its logger, the clocks, the durable sections of
/// the data directory, its share of the open-files limit and what the exporter's listeners
/// share (TLS, the bcrypt threads).
///
/// The exporter makes one per ``FrontEndFactory`` each time it makes that front end: at start,
/// and again when a reload changes the factory's section. What the front end registers in
/// ``registry`` is served on `/metrics` while it runs and removed with it; what it subscribes
/// to ``publication`` stops being called once it is replaced.
public struct FrontEndContext<C: Clock>: Sendable where C.Duration == Duration {
    /// The whole configuration in effect (the front end reads its own section).
    public var configuration: ExporterConfiguration
    /// The fleet's publications: the state now, and every publication from now on.
    public var publication: any FleetPublishing<C>
    /// The front end's own metrics, served on `/metrics` (and pushed) with the exporter's.
    public var registry: MetricRegistry
    /// The exporter's components' logger: a front end logs under a component of its own
    /// (`logger.component("nut")`).
    public var logger: WPLogger
    /// The fleet's clock (the publications' instants are on it).
    public var clock: C
    /// The wall clock: times shown to people and written to files.
    public var wallClock: WallClock
    /// The exporter's version (`0.4.0`), for what a front end tells its clients.
    public var version: String
    /// `storage.data_dir` when the exporter keeps its state there; `nil` when everything is kept
    /// in memory (tests, previews).
    public var dataDirectory: String?
    /// The named sections of the data directory's state file (in memory without one): a front
    /// end claims its own and keeps what must survive a restart there.
    public var sections: StateSections
    /// The connections the front end may hold, when the open-files limit is shared out
    /// (``FrontEndFactory/connections``): `nil` when it asked for none or the limit is
    /// unlimited.
    public var connections: Int?
    /// The certificate the exporter's listener serves (the web configuration's), if any.
    public var tls: WPTLSConfiguration?
    /// The threads that check bcrypt hashes, shared by every listener that checks passwords.
    public var passwords: BCryptPool?
    /// What `/metrics` serves now, in the text format, with the exporter's own per-scrape
    /// families (the bytes a scrape gets): empty before the first collection.
    public var exposition: @Sendable () async -> [UInt8]
    /// The configuration in effect now (``configuration`` plus what reloads applied since): what
    /// a front end a reload does not make again reads at each use.
    public var configurationNow: @Sendable () -> ExporterConfiguration
    /// The exporter's front ends now, in the list's order: one that shows what another keeps
    /// (the status pages show the cost counters' costs) finds it here at each use, so a
    /// successor a reload made is the one it reads. While a front end is made, the ones made
    /// before it are already here (not itself, nor those after it).
    public var frontEnds: @Sendable () -> [any FrontEnd]
    /// Whether a reload makes the front end (a successor), rather than the exporter's start.
    package var atReload = false

    /// A context of these parts (the exporter makes one per front end; a test may make its own).
    public init(configuration: ExporterConfiguration, publication: any FleetPublishing<C>, registry: MetricRegistry,
                logger: WPLogger, clock: C, wallClock: WallClock, version: String,
                dataDirectory: String?, sections: StateSections, connections: Int? = nil,
                tls: WPTLSConfiguration? = nil, passwords: BCryptPool? = nil,
                exposition: @escaping @Sendable () async -> [UInt8] = { [] },
                configurationNow: (@Sendable () -> ExporterConfiguration)? = nil,
                frontEnds: @escaping @Sendable () -> [any FrontEnd] = { [] }) {
        self.configuration = configuration
        self.configurationNow = configurationNow ?? { configuration }
        self.frontEnds = frontEnds
        self.publication = publication
        self.registry = registry
        self.logger = logger
        self.clock = clock
        self.wallClock = wallClock
        self.version = version
        self.dataDirectory = dataDirectory
        self.sections = sections
        self.connections = connections
        self.tls = tls
        self.passwords = passwords
        self.exposition = exposition
    }
}

/// How the exporter makes one front end: the configuration section it serves, whether a new
/// configuration changes it, the connections it asks for, and the function that makes it from
/// a ``FrontEndContext``. The exporter's composition is a list of them (NUT, SNMP, push, …,
/// then WPExporter's `Exporter.Options.frontEnds`); each is made at start, in the list's order, and made
/// again when a reload changes its section (the old one stopped first, so a port is free to be
/// bound again).
///
/// ```swift
/// let journal = FrontEndFactory<ContinuousClock>(section: "journal") { context in
///     JournalFrontEnd(publication: context.publication, logger: context.logger.component("journal"))
/// }
/// var options = Exporter<ContinuousClock>.Options(logger: logger)
/// options.frontEnds = [journal]
/// ```
public struct FrontEndFactory<C: Clock>: Sendable where C.Duration == Duration {
    /// The configuration section it serves (`nut`, `snmp`, `push`): how errors and reloads name it.
    public var section: String
    /// The section it declares, when its keys are its own (``init(_:connections:make:)``): the
    /// exporter's configuration schema holds them (`Exporter.configurationSchema(adding:)`).
    public var declares: ConfigSchema.Section?
    /// Whether going from the first configuration to the second changes what it serves (a
    /// reload then makes it again).
    public var changed: @Sendable (_ running: ExporterConfiguration, _ next: ExporterConfiguration) -> Bool
    /// The client connections it holds at most under a configuration (`nil`: none): its share
    /// of the open-files limit is fitted to it and handed back as
    /// ``FrontEndContext/connections``.
    public var connections: @Sendable (ExporterConfiguration) -> Int?
    /// Makes the front end, or `nil` when the configuration turns it off. Throws
    /// ``FrontEndError`` naming the key at fault.
    public var make: @Sendable (FrontEndContext<C>) throws(FrontEndError) -> (any FrontEnd)?

    /// A factory whose front end serves `settings` of the configuration: a reload whose
    /// `settings` differ makes it again.
    ///
    /// - Parameters:
    ///   - section: the section's name, in errors and reload answers.
    ///   - settings: what of the configuration it serves (`{ $0.nut }`).
    ///   - connections: the connections it holds at most (`nil`, the default: none).
    ///   - make: makes it (`nil`: off under this configuration).
    public init(
        section: String, settings: @escaping @Sendable (ExporterConfiguration) -> any Equatable,
        connections: @escaping @Sendable (ExporterConfiguration) -> Int? = { _ in nil },
        make: @escaping @Sendable (FrontEndContext<C>) throws(FrontEndError) -> (any FrontEnd)?) {
        self.section = section
        self.changed = { !Self.equal(settings($0), settings($1)) }
        self.connections = connections
        self.make = make
    }

    /// A factory whose front end serves the section it declares, `Settings`: its keys are read
    /// with the exporter's (file, environment, flags), listed by `check-config` and the
    /// reference, and its secrets masked in the log; a reload whose `Settings` differ makes it
    /// again. The front end reads them as `context.configuration[section: Settings.self]`.
    ///
    /// - Parameters:
    ///   - settings: the section's settings type.
    ///   - connections: the connections it holds at most (`nil`, the default: none).
    ///   - make: makes it (`nil`: off under this configuration).
    public init<Settings: ConfigSectionSettings>(
        _ settings: Settings.Type, connections: @escaping @Sendable (ExporterConfiguration) -> Int? = { _ in nil },
        make: @escaping @Sendable (FrontEndContext<C>) throws(FrontEndError) -> (any FrontEnd)?) {
        self.init(section: Settings.section.name, settings: { $0[section: Settings.self] }, connections: connections, make: make)
        declares = Settings.section.erased
    }

    /// Whether two settings are the same value of the same type.
    private static func equal(_ first: any Equatable, _ second: any Equatable) -> Bool {
        func compare<Settings: Equatable>(_ first: Settings) -> Bool { (second as? Settings) == first }
        return compare(first)
    }

    /// A factory whose front end reads no part of the configuration (an embedder's, set up by
    /// its own code): made once at start, never again by a reload.
    public init(section: String, connections: @escaping @Sendable (ExporterConfiguration) -> Int? = { _ in nil },
                make: @escaping @Sendable (FrontEndContext<C>) throws(FrontEndError) -> (any FrontEnd)?) {
        self.section = section
        self.changed = { _, _ in false }
        self.connections = connections
        self.make = make
    }
}
