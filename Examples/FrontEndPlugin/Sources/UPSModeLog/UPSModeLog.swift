import Synchronization
public import WPClient
public import WPFrontEnd
import WPLogging
import WPMetrics

/// A front end that logs every UPS whose operating mode changed between two collections (on
/// battery, back on line, a self-test, a fault) and counts the changes on `/metrics`
/// (`example_ups_mode_changes_total{ups, mode}`), its `/health` section the number so far.
///
/// Made by ``factory()``, given to the exporter in `Exporter.Options.frontEnds`:
///
/// ```swift
/// var options = Exporter<ContinuousClock>.Options(logger: logger)
/// options.frontEnds = [UPSModeLog.factory()]
/// let exporter = try Exporter(configuration: configuration, options: options)
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

    /// The factory of this front end, for `Exporter.Options.frontEnds`. It reads no part of
    /// the exporter's configuration, so a reload never makes it again.
    public static func factory() -> FrontEndFactory<C> {
        FrontEndFactory(section: "mode_log") { context throws(FrontEndError) in
            try UPSModeLog(context)
        }
    }

    /// Registers its counter in the context's registry and subscribes to the publication.
    ///
    /// - Throws: ``FrontEndError/metrics(_:)`` when the counter cannot be registered.
    public init(_ context: FrontEndContext<C>) throws(FrontEndError) {
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
        let (stream, _) = AsyncStream<Void>.makeStream()
        for await _ in stream {}
    }

    /// Compares each UPS's mode with the one it had at the previous publication.
    private func published(_ state: FleetState<C>) {
        var found: [Change] = []
        modes.withLock { modes in
            for server in state.servers {
                for reading in server.devices.readings {
                    guard let mode = reading.device.operatingMode else { continue }
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
