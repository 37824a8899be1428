import Foundation
import Testing
import WPClient
import WPConfig
import WPFrontEnd
import WPLogging
import WPServer
import WPSimulator
import WPRuntime
import WPTestSupport
@testable import WPExporter
import WPWallClock

/// A simulator on a real socket and an exporter against it, in process, sharing one manual
/// clock: the simulator's readings, token lifetimes, energy integration and staleness all
/// move only when the test advances the clock. Collections are driven by the test.
final class ExporterHarness: Sendable {
    let clock: ManualClock
    let epoch = Date(timeIntervalSince1970: 1_760_365_813)
    let simulatorServer: SimulatorServer
    let exporter: Exporter<ManualClock>
    let logs: InMemoryLogSink
    let dataDirectory: String
    private let serverTask: Task<Void, any Error>
    let port: Int

    var simulator: WinPowerSimulator { simulatorServer.simulator }

    /// - Parameters:
    ///   - devices: simulated devices.
    ///   - dataDirectory: the energy state directory (a fresh one by default).
    ///   - clock: shared clock (pass the previous harness's to restart "later").
    ///   - configure: changes to the simulator.
    ///   - configureExporter: changes to the exporter's configuration.
    ///   - clientsForReloads: servers a reload adds get clients like the first one (on the
    ///     shared clock); otherwise such a reload is refused.
    init(devices: Int = 5, dataDirectory: String? = nil, clock: ManualClock = ManualClock(),
         configure: (inout WinPowerSimulator.Configuration) -> Void = { _ in },
         configureExporter: (inout ExporterConfiguration) -> Void = { _ in },
         componentLabels: Exporter<ManualClock>.ComponentLabels = .nested,
         energyStorage: EnergyStorage = .dataDirectory, listeners: Listeners = .sockets,
         clientsForReloads: Bool = false, webSecurity: WebSecurity = .none,
         frontEnds: [FrontEndFactory<ManualClock>] = []) async throws {
        self.clock = clock
        var simulatorConfiguration = WinPowerSimulator.Configuration()
        simulatorConfiguration.deviceCount = devices
        simulatorConfiguration.username = "admin"
        simulatorConfiguration.password = "s3cr3t-Pa55"
        simulatorConfiguration.epoch = epoch
        configure(&simulatorConfiguration)
        simulatorServer = SimulatorServer(simulator: WinPowerSimulator(configuration: simulatorConfiguration, clock: clock))
        let address = try await simulatorServer.start()
        let directory = dataDirectory ?? temporaryPathRemovedAtExit("wpexporter-e2e")
        self.dataDirectory = directory
        var configuration = Self.configuration(baseURL: "http://127.0.0.1:\(address.port)", username: simulatorConfiguration.username,
                                               password: simulatorConfiguration.password, dataDirectory: directory)
        configureExporter(&configuration)
        let logs = InMemoryLogSink()
        self.logs = logs
        let redactor = Redactor(secrets: [simulatorConfiguration.password])
        let logger = WPLogger(label: "test", level: .debug, sink: logs, redactor: redactor)
        let (epoch, wall) = (epoch, clock)
        let wallClock = WallClock.following(wall, from: epoch)
        let makeClient: ClientFactory = { entry in
            WinPowerHTTPClient(configuration: try ExporterSettings.client(entry.winPower), clock: clock,
                               wallClock: wallClock, logger: logger.child(label: "client"))
        }
        exporter = try Exporter(configuration: configuration, clients: [try makeClient(Exporter<ManualClock>.singleServerEntry(configuration))],
                                clock: clock, wallClock: wallClock, logger: logger, webSecurity: webSecurity,
                                clientFactory: clientsForReloads ? makeClient : nil, componentLabels: componentLabels,
                                energyStorage: energyStorage, listeners: listeners, frontEnds: frontEnds)
        let server = exporter.server
        serverTask = Task { try await server.run() }
        port = try await server.waitUntilListening().port
    }

    /// A configuration listening on a free loopback port, against `baseURL`.
    static func configuration(baseURL: String, username: String, password: String,
                              dataDirectory: String) -> ExporterConfiguration {
        var configuration = ExporterConfiguration()
        configuration.server.host = "127.0.0.1"
        configuration.server.port = 0
        configuration.winPower.baseURL = baseURL
        configuration.winPower.username = username
        configuration.winPower.password = Secret(password)
        configuration.storage.dataDirectory = dataDirectory
        return configuration
    }

    /// Stops both servers and persists energy (releasing the data directory).
    func shutdown() async {
        serverTask.cancel()
        _ = try? await serverTask.value
        await exporter.close()
        await simulatorServer.stop()
    }

    /// GET `path` from the exporter.
    func get(_ path: String, headers: [String: String] = [:]) async throws -> TestHTTPClient.Response {
        var request = "GET \(path) HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n"
        for (name, value) in headers { request += "\(name): \(value)\r\n" }
        let connection = try await TestHTTPClient.connect(port: port, sending: request + "\r\n")
        defer { connection.close() }
        return try await connection.readResponse()
    }

    /// The scraped text exposition as `series → value` (`name{labels}` keys).
    func scrape() async throws -> [String: Double] {
        let response = try await get("/metrics")
        #expect(response.status == 200)
        return Exposition.samples(response.text)
    }
}

/// Small readers for the text exposition and gzip bodies in tests.
enum Exposition {
    static func samples(_ text: String) -> [String: Double] {
        var result: [String: Double] = [:]
        for line in text.split(separator: "\n") where !line.hasPrefix("#") {
            guard let space = line.lastIndex(of: " ") else { continue }
            result[String(line[..<space])] = Double(line[line.index(after: space)...])
        }
        return result
    }

    /// The series of metric `name` for device `id`, with its value.
    static func value(_ samples: [String: Double], _ name: String, device id: String) -> Double? {
        samples.first { $0.key.hasPrefix(name + "{") && $0.key.contains("device_id=\"\(id)\"") }?.value
    }
}
