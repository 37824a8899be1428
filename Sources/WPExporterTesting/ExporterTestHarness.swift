public import FoundationEssentials
import WPClient
import WPCollector
public import WPConfig
public import WPExporter
public import WPFrontEnd
public import WPLogging
public import WPRuntime
import WPServer
public import WPSimulator
import WPWallClock

/// The exporter as an embedder's tests need it: an `Exporter` against a simulated WinPower
/// G2 server in this process, both on one `ManualClock`, the energy totals in memory
/// (`EnergyStorage.memory`: no data directory). Nothing runs on its own: ``collect()`` runs one
/// collection, ``advance(by:)`` moves time (the simulator's readings, energy integration and
/// staleness with it), ``metrics(path:)`` answers a request as the exporter's `/metrics` would.
///
/// ```swift
/// import Testing
/// import WPExporterTesting
///
/// @Test func everyUPSIsExported() async throws {
///     let harness = try await ExporterTestHarness(devices: 3)
///     await harness.collect()
///     let metrics = try await harness.metrics()
///     #expect(metrics.contains("winpower_exporter_up 1"))
///     await harness.shutdown()
/// }
/// ```
///
/// The simulator listens on a loopback port of its own (the exporter's real WinPower client
/// talks to it over HTTP, as it would to a server); the exporter binds nothing unless the test
/// runs it (`Exporter.run(onListening:reloadRequests:until:)`).
public final class ExporterTestHarness: Sendable {
    /// The clock the exporter and the simulator share; it moves only by ``advance(by:)``.
    public let clock: ManualClock
    /// The simulated WinPower server (its devices, faults and counters).
    public let simulator: WinPowerSimulator
    /// The exporter under test.
    public let exporter: Exporter<ManualClock>
    /// The simulated server's URL, as `winpower.base_url` names it.
    public let winPowerURL: String
    private let server: SimulatorServer

    /// Starts a simulated WinPower server and builds an exporter against it.
    ///
    /// - Parameters:
    ///   - devices: how many UPSs the simulator serves.
    ///   - epoch: the wall-clock time at the clock's zero (what `/health` and timestamps show).
    ///   - configureSimulator: changes to the simulator (faults, an outage schedule, aliases…).
    ///   - configure: changes to the exporter's configuration (its WinPower URL, user and
    ///     password are set to the simulator's first).
    ///   - logger: where the exporter logs (nowhere by default).
    ///   - frontEnds: front ends of the test's own, made after the exporter's
    ///     (`Exporter.Options.frontEnds`): each ``collect()`` hands them its publication.
    /// - Throws: `SimulatorFleetError` or `ServerError` when the simulator cannot listen,
    ///   `ExporterError` when the configuration is refused.
    public init(devices: Int = 3, epoch: Date = Date(timeIntervalSince1970: 1_760_000_000),
                simulator configureSimulator: (inout WinPowerSimulator.Configuration) -> Void = { _ in },
                configuration configure: (inout ExporterConfiguration) -> Void = { _ in },
                logger: WPLogger = .disabled, frontEnds: [FrontEndFactory<ManualClock>] = []) async throws {
        let clock = ManualClock()
        self.clock = clock
        var simulatorConfiguration = WinPowerSimulator.Configuration()
        simulatorConfiguration.deviceCount = devices
        simulatorConfiguration.epoch = epoch
        configureSimulator(&simulatorConfiguration)
        let simulator = WinPowerSimulator(configuration: simulatorConfiguration, clock: clock)
        self.simulator = simulator
        server = SimulatorServer(simulator: simulator)
        let address = try await server.start()
        winPowerURL = "http://127.0.0.1:\(address.port)"
        var configuration = ExporterConfiguration()
        configuration.server.host = "127.0.0.1"
        configuration.server.port = 0
        configuration.winPower.baseURL = winPowerURL
        configuration.winPower.username = simulatorConfiguration.username
        configuration.winPower.password = Secret(simulatorConfiguration.password)
        configure(&configuration)
        let wallClock = WallClock.following(clock, from: epoch)
        var options = Exporter<ManualClock>.Options(clock: clock, logger: logger, makeClient: { entry in
            WinPowerHTTPClient(configuration: try ExporterSettings.client(entry.winPower), clock: clock,
                               wallClock: wallClock, logger: logger.component("client"))
        }, wallClock: wallClock, mergeSpacing: .zero)
        options.energyStorage = .memory
        options.frontEnds = frontEnds
        do {
            exporter = try Exporter(configuration: configuration, options: options)
        } catch {
            await server.stop()
            throw error
        }
    }

    /// Runs one collection of every configured server now, as the scheduler would, and
    /// returns once it is published (on `/metrics`, NUT and SNMP).
    public func collect() async {
        for pipeline in exporter.fleet.pipelines { await pipeline.collector.collect() }
    }

    /// Moves the shared clock forward: the simulator's readings change with it, and the next
    /// ``collect()`` integrates energy over it.
    public func advance(by duration: Duration) {
        clock.advance(by: duration)
    }

    /// What the exporter answers a `GET` of `path` (`/metrics` by default; `/health` and the
    /// other endpoints alike), as text.
    ///
    /// - Throws: ``HarnessError/status(_:path:body:)`` when the answer is not 200.
    public func metrics(path: String = "/metrics") async throws -> String {
        let response = try await exporter.router.handle(WPHTTPRequest(method: "GET", target: path))
        let body = String(decoding: response.prepared(acceptsGzip: false).body, as: UTF8.self)
        guard response.status == 200 else { throw HarnessError.status(response.status, path: path, body: body) }
        return body
    }

    /// Stops the exporter (its energy totals saved, in memory) and the simulator. Call it once,
    /// at the end of the test.
    public func shutdown() async {
        await exporter.close()
        await server.stop()
    }

    /// Why ``metrics(path:)`` failed.
    public enum HarnessError: Error, Sendable, Equatable, CustomStringConvertible {
        /// The exporter answered `path` with this status (and body).
        case status(Int, path: String, body: String)

        /// `GET <path> answered <status>: <body>`, the body cut at 200 characters.
        public var description: String {
            switch self {
            case .status(let status, let path, let body): "GET \(path) answered \(status): \(body.prefix(200))"
            }
        }
    }
}
