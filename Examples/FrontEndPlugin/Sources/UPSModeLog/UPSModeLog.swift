import Synchronization
public import WPClient
public import WPConfig
public import WPFrontEnd
import WPLogging
import WPMetrics

/// `mode_log.*`: the section ``UPSModeLog`` declares (`mode_log.enabled`,
/// `WINPOWER_EXPORTER_MODE_LOG_ENABLED`, `--mode_log.enabled`, and `ignore_self_tests`).
public struct ModeLogSettings: ConfigSectionSettings {
    /// `mode_log.enabled`: log and count the changes (on by default).
    public var enabled = true
    /// `mode_log.ignore_self_tests`: a self-test and its end are no change.
    public var ignoreSelfTests = false

    /// Every key at its default.
    public init() {}

    /// The keys of `mode_log.*`.
    public static let section = ConfigSection<ModeLogSettings>("mode_log", [
        .boolean("enabled", \.enabled, "Log each UPS whose operating mode changed and count the changes."),
        .boolean("ignore_self_tests", \.ignoreSelfTests, "A self-test and its end are no change."),
    ])
}

/// A front end that logs every UPS whose operating mode changed between two collections (on
/// battery, back on line, a self-test, a fault) and counts the changes on `/metrics`
/// (`example_ups_mode_changes_total{ups, mode}`), its `/health` section the number so far.
///
/// Made by ``factory()``, given to the exporter in `Exporter.Options.frontEnds`; its section
/// `mode_log` (``ModeLogSettings``) is read with the exporter's keys when the configuration is loaded
/// with `Exporter.configurationSchema(adding:)`:
///
/// ```swift
/// let factories = [UPSModeLog<ContinuousClock>.factory()]
/// let schema = Exporter<ContinuousClock>.configurationSchema(adding: factories)
/// let loaded = try ConfigurationLoader.load(ConfigurationInputs(configPath: path, files: .system, schema: schema))
/// var options = Exporter<ContinuousClock>.Options(logger: logger)
/// options.frontEnds = factories
/// let exporter = try Exporter(configuration: loaded.configuration, options: options)
/// ```
///
/// It does its work in its subscriber, which the exporter calls after each collection: CPU work
/// that finishes (comparing modes, a log record, a counter), never I/O.
public final class UPSModeLog<C: Clock>: FrontEnd where C.Duration == Duration {
    /// One change of a UPS's mode.
    public struct Change: Sendable, Equatable {
        /// The UPS's name, as NUT and SNMP serve it.
        public var ups: String
        /// Its mode at the collection before.
        public var from: OperatingMode
        /// Its mode now.
        public var to: OperatingMode
    }

    public let name = "the UPS mode log"
    private let logger: WPLogger
    private let counter: CounterVec
    /// Each UPS's last mode, by the key of its server and device.
    private let modes = Mutex<[String: OperatingMode]>([:])
    private let recorded = Mutex<[Change]>([])

    /// The factory of this front end, for `Exporter.Options.frontEnds`: off with
    /// `mode_log.enabled: false`, made again by a reload that changes `mode_log.*`.
    public static func factory() -> FrontEndFactory<C> {
        FrontEndFactory(ModeLogSettings.self) { context throws(FrontEndError) in
            let settings = context.configuration[section: ModeLogSettings.self]
            return settings.enabled ? try UPSModeLog(context, settings: settings) : nil
        }
    }

    private let settings: ModeLogSettings

    /// Registers its counter in the context's registry and subscribes to the publication.
    ///
    /// - Throws: ``FrontEndError/metrics(_:)`` when the counter cannot be registered.
    public init(_ context: FrontEndContext<C>, settings: ModeLogSettings = ModeLogSettings()) throws(FrontEndError) {
        self.settings = settings
        logger = context.logger.component("mode_log")
        do throws(MetricsError) {
            counter = try context.registry.counterVec(name: "example_ups_mode_changes_total",
                                                      help: "Changes of a UPS's operating mode seen between two collections.",
                                                      labelNames: ["ups", "mode"])
        } catch {
            throw .metrics(error)
        }
        context.publication.subscribe { [self] state in published(state) }
    }

    /// The changes seen so far, oldest first.
    public var changes: [Change] { recorded.withLock { $0 } }

    /// Its `/health` section: `"mode_log": {"changes": N}`.
    public var health: FrontEndHealth? {
        FrontEndHealth(key: "mode_log", value: ["changes": recorded.withLock { $0.count }])
    }

    /// Nothing to serve: the work is done in the subscriber. Returns when cancelled.
    public func run() async throws {
        await untilCancelled()
    }

    /// Compares each UPS's mode with the one it had at the previous publication.
    private func published(_ state: FleetState<C>) {
        var found: [Change] = []
        modes.withLock { modes in
            for server in state.servers {
                for reading in server.devices.readings {
                    guard let mode = reading.device.operatingMode,
                          !(settings.ignoreSelfTests && mode == .batteryTest) else { continue }
                    let key = FleetState<C>.key(server: server.name, device: reading.device.id)
                    // The first reading of a UPS is no change.
                    guard let before = modes.updateValue(mode, forKey: key), before != mode else { continue }
                    found.append(Change(ups: server.names[reading.device.id] ?? reading.device.id, from: before, to: mode))
                }
            }
        }
        guard !found.isEmpty else { return }
        recorded.withLock { $0 += found }
        for change in found {
            logger.info("UPS mode changed", ["ups": .string(change.ups), "from": .string(change.from.label),
                                             "to": .string(change.to.label)])
            try? counter.labels(change.ups, change.to.label).increment()
        }
    }
}
