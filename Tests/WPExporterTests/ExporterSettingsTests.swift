import Foundation
import Testing
import WPTestThreads
import WPClient
import WPCollector
import WPConfig
import WPHTTPClient
import WPLogging
import WPServer
import WPStorage
@testable import WPExporter

/// The configuration reaches each library's own settings unchanged.
@Suite(.ownThreads, .timeLimit(.minutes(3))) struct ExporterSettingsTests {
    @Test func everySectionIsMapped() throws {
        var configuration = ExporterConfiguration()
        configuration.server.host = "::1"
        configuration.server.port = 9191
        configuration.server.readTimeout = .seconds(7)
        configuration.server.writeTimeout = .seconds(9)
        configuration.scheduler.collectionInterval = .seconds(10)
        configuration.scheduler.gracefulShutdownTimeout = .seconds(3)
        configuration.winPower.baseURL = "https://ops:pw@winpower.example:8081/wp?x=1"
        configuration.winPower.username = "admin"
        configuration.winPower.password = Secret("Pa55")
        configuration.winPower.apiTimeout = .seconds(4)
        configuration.winPower.caFile = "/etc/ca.pem"
        configuration.storage.dataDirectory = "/var/lib/wp"
        configuration.storage.filePermissions = 0o600
        configuration.storage.syncWrite = false
        configuration.logging.level = .debug
        configuration.logging.format = .console
        configuration.logging.output = .both("/var/log/wp.log")

        let server = ExporterSettings.server(configuration)
        #expect(server.host == "::1" && server.port == 9191)
        #expect(server.headTimeout == .seconds(7) && server.bodyTimeout == .seconds(7) && server.writeTimeout == .seconds(9))
        #expect(server.shutdownGracePeriod == .seconds(3))

        let client = try ExporterSettings.client(configuration.winPower)
        #expect(client.username == "admin" && client.password == "Pa55" && client.apiTimeout == .seconds(4))
        #expect(client.caFile == "/etc/ca.pem")
        #expect((WinPowerHTTPClient.makeTransport(for: client) as? HTTPClientTransport)?.tls == .trust(caFile: "/etc/ca.pem"))

        let storage = ExporterSettings.storage(configuration.storage)
        #expect(storage.dataDirectory == "/var/lib/wp" && storage.filePermissions == 0o600 && !storage.syncWrite)

        let logging = ExporterSettings.logging(configuration.logging)
        #expect(logging.level == .debug && logging.format == .console && logging.output == .both)
        #expect(logging.filePath == "/var/log/wp.log")

        let collector = ExporterSettings.collector(configuration)
        #expect(collector.interval == .seconds(10) && collector.stalenessWindow == .seconds(30))
        #expect(collector.target == "https://winpower.example:8081/wp")
    }

    @Test func userAgentDefaultsToTheVersionAndFollowsTheKey() throws {
        var winPower = ExporterConfiguration.WinPower()
        winPower.baseURL = "https://winpower.example:8081"
        #expect(try ExporterSettings.client(winPower).userAgent == "wpexporter/\(BuildInfo.exporterVersion)")
        winPower.userAgent = "site-a-exporter/2"
        #expect(try ExporterSettings.client(winPower).userAgent == "site-a-exporter/2")
    }

    @Test func theDeviceBoundsReachTheClient() throws {
        var winPower = ExporterConfiguration.WinPower()
        winPower.baseURL = "https://winpower.example:8081"
        let defaults = try ExporterSettings.client(winPower)
        #expect(defaults.maxDevices == 10_000 && defaults.maxPages == 1_000 && defaults.maxTextBytes == 256)
        (winPower.maxDevices, winPower.maxPages, winPower.maxTextBytes) = (123, 45, 678)
        let client = try ExporterSettings.client(winPower)
        #expect(client.maxDevices == 123 && client.maxPages == 45 && client.maxTextBytes == 678)
    }

    @Test func aMissingBaseURLIsAnErrorNotACrash() {
        #expect(throws: UnusableBaseURL()) { try ExporterSettings.client(ExporterConfiguration.WinPower()) }
    }

    /// JSON stays the default for pipes, files and collectors; on a terminal an unset format
    /// is `console`; a format that was set is kept everywhere.
    @Test func anUnsetLogFormatIsConsoleOnATerminal() {
        var logging = ExporterConfiguration.Logging()
        let terminal: (Int32) -> Bool = { $0 == 1 }
        #expect(ExporterSettings.logFormat(logging, formatIsDefault: true, isTerminal: terminal) == .console)
        #expect(ExporterSettings.logFormat(logging, formatIsDefault: true, isTerminal: { _ in false }) == .json)
        #expect(ExporterSettings.logFormat(logging, formatIsDefault: false, isTerminal: terminal) == .json)
        logging.output = .stderr
        #expect(ExporterSettings.logFormat(logging, formatIsDefault: true, isTerminal: terminal) == .json, "stderr is not the terminal here")
        logging.output = .file("/var/log/wpexporter.log")
        #expect(ExporterSettings.logFormat(logging, formatIsDefault: true, isTerminal: { _ in true }) == .json)
        logging.output = .both("/var/log/wpexporter.log")
        #expect(ExporterSettings.logFormat(logging, formatIsDefault: true, isTerminal: terminal) == .console)
    }
}
