#if os(Linux)
import FoundationEssentials
import Glibc
import Logging
import ServiceLifecycle
import Testing
import WPConfig
import WPExporter
import WPLogging
import WPServer
import WPServiceLifecycle
import WPSimulator

/// The WinPower exporter as a Service: it collects until the group's graceful shutdown, then
/// saves its totals; a failure stops the group naming the key at fault.
@Suite(.timeLimit(.minutes(3))) struct ExporterServiceTests {
    static func configuration(baseURL: String, dataDirectory: String) -> ExporterConfiguration {
        var configuration = ExporterConfiguration()
        configuration.server.host = "127.0.0.1"
        configuration.server.port = 0
        configuration.storage.dataDirectory = dataDirectory
        configuration.storage.syncWrite = false
        configuration.scheduler.collectionInterval = .seconds(1)
        configuration.winPower.baseURL = baseURL
        configuration.winPower.username = "admin"
        configuration.winPower.password = Secret("admin")
        return configuration
    }

    static func temporaryDirectory() -> String {
        "/tmp/wpexporter-service-\(getpid())-\(UInt64.random(in: 0...UInt64.max))"
    }

    static var groupLogger: Logger { Logger(label: "group", factory: { _ in SwiftLogNoOpLogHandler() }) }

    @Test func aTriggeredShutdownStopsCollectingAndSavesTheTotals() async throws {
        let simulator = SimulatorServer(simulator: WinPowerSimulator())
        let port = try await simulator.start().port
        let directory = Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let sink = RecordingSink()
        let log = WPLogger(label: "service", level: .info, sink: sink)
        let collected = Gate()
        let exporter = try Exporter(configuration: Self.configuration(baseURL: "http://127.0.0.1:\(port)", dataDirectory: directory),
                                    options: .init(clock: ContinuousClock(), logger: log,
                                                   
                                                   afterCollection: { collected.open() }))
        let listening = Gate()
        let group = ServiceGroup(configuration: .init(
            services: [ExporterService(exporter, listener: .own(onListening: { _ in listening.open() }))],
            logger: Self.groupLogger))
        let running = Task { try await group.run() }
        defer { running.cancel() }
        try await within(.seconds(60), "the exporter to listen") { await listening.wait() }
        try await within(.seconds(60), "a collection") { await collected.wait() }
        await group.triggerGracefulShutdown()
        try await within(.seconds(60), "the group to return") { try await running.value }
        _ = try await within(.seconds(5), "the totals saved on the way out") { await sink.wait(for: "energy persisted") }
        await simulator.stop()
    }

    @Test func aTakenNUTPortEndsTheGroupNamingTheKey() async throws {
        let taken = try ReservedPort(port: 0, mode: .silent)
        defer { taken.close() }
        let directory = Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        var configuration = Self.configuration(baseURL: "http://127.0.0.1:9", dataDirectory: directory)
        configuration.nut.listen = "127.0.0.1:\(taken.port)"
        let exporter = try Exporter(configuration: configuration, options: .init(
            clock: ContinuousClock(), logger: .disabled))
        let group = ServiceGroup(configuration: .init(services: [ExporterService(exporter, listener: .none)],
                                                      logger: Self.groupLogger))
        do {
            try await within(.seconds(60), "the group to fail") { try await group.run() }
            Issue.record("the group ran on with a taken NUT port")
        } catch {
            #expect("\(error)".contains("nut.listen: cannot listen on 127.0.0.1:\(taken.port)"), "\(error)")
        }
    }

    @Test func anInvalidConfigurationIsRefusedBeforeTheServiceExists() throws {
        var configuration = Self.configuration(baseURL: "http://127.0.0.1:9", dataDirectory: Self.temporaryDirectory())
        configuration.scheduler.collectionInterval = .zero
        #expect(throws: ExporterError.self) {
            _ = try Exporter(configuration: configuration, options: .init(
                clock: ContinuousClock(), logger: .disabled))
        }
    }
}

#endif
