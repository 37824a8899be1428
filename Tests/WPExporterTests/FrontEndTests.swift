import Foundation
import Testing
import WPTestThreads
import WPConfig
import WPLogging
import WPServer
import WPRuntime
import WPTestSupport
@testable import WPExporter
import WPFrontEnd
import WPNUTFrontEnd
import WPWallClock

/// The front ends as the exporter composes them: one list, in start order, from the
/// configuration's sections; the listeners that check passwords share one bcrypt pool.
@Suite(.ownThreads, .timeLimit(.minutes(3))) struct FrontEndTests {
    private static func exporter(_ configure: (inout ExporterConfiguration) -> Void,
                                 webSecurity: WebSecurity = .none) throws -> Exporter<ManualClock> {
        var configuration = ExporterConfiguration()
        configuration.server.host = "127.0.0.1"
        configuration.server.port = 0
        configuration.winPower.baseURL = "http://127.0.0.1:1"
        configuration.winPower.username = "admin"
        configuration.winPower.password = Secret("pw-Not-Logged-9")
        configure(&configuration)
        return try Exporter(configuration: configuration, client: ClientStub(), clock: ManualClock(), wallClock: .system,
                            logger: WPLogger(label: "test", sink: InMemoryLogSink()), webSecurity: webSecurity,
                            energyStorage: .memory)
    }

    @Test func theFrontEndsAreTheConfiguredSectionsInStartOrder() async throws {
        let plain = try Self.exporter { _ in }
        #expect(plain.frontEnds.map(\.name) == ["the battery health meter", "the status pages"],
                "no nut.listen, snmp.listen, push.url nor tariffs, history in memory: the HTTP listener, the battery health meter and the status pages")
        await plain.close()

        let directory = temporaryPathRemovedAtExit("wpexporter-front-ends")
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let snmpUsers = directory + "/snmp-users.yml"
        try "communities:\n  - community: c0mmunity-Xy\n".write(toFile: snmpUsers, atomically: true, encoding: .utf8)
        let all = try Self.exporter { configuration in
            configuration.push.url = "http://127.0.0.1:9/"
            configuration.snmp.listen = "127.0.0.1:0"
            configuration.snmp.usersFile = snmpUsers
            configuration.nut.listen = "127.0.0.1:0"
            configuration.nut.allowAnonymous = true
            configuration.energy.tariffs.currency = "CNY"
            configuration.energy.tariffs.flatPrice = 0.5
        }
        #expect(all.frontEnds.map(\.name) == ["the battery health meter", "the NUT server", "the SNMP agent", "the Pushgateway push loop",
                                              "the energy cost counters", "the status pages"])
        #expect(all.http.name == "the HTTP server")
        await all.close()
    }

    /// The NUT and SNMP front ends live in modules of their own and throw their own error; the
    /// composition reports it as the error of their section, naming the file, as before.
    @Test(arguments: ["nut", "snmp"]) func aFrontEndsOwnErrorIsReportedAsItsSection(section: String) throws {
        let directory = temporaryPathRemovedAtExit("wpexporter-front-end-errors")
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let broken = directory + "/users.yml"
        try "users: [unclosed\n".write(toFile: broken, atomically: true, encoding: .utf8)
        do {
            _ = try Self.exporter { configuration in
                if section == "nut" {
                    (configuration.nut.listen, configuration.nut.usersFile) = ("127.0.0.1:0", broken)
                } else {
                    (configuration.snmp.listen, configuration.snmp.usersFile) = ("127.0.0.1:0", broken)
                }
            }
            Issue.record("a broken \(section).users_file was accepted")
        } catch {
            guard case .frontEnd(let named, let reason)? = error as? ExporterError, named == section else {
                Issue.record("not the ExporterError of \(section): \(error)")
                return
            }
            #expect(reason.contains(broken), "\(reason)")
            #expect("\(error)".hasPrefix("\(section): "), "the message names the section: \(error)")
        }
    }

    /// `/health` shows each front end's section, read from the front end itself, under both
    /// shapes of the configuration; a front end that is off has none.
    @Test func healthShowsEachFrontEndsOwnSection() async throws {
        let single = try Self.exporter { configuration in
            configuration.nut.listen = "127.0.0.1:0"
            configuration.nut.allowAnonymous = true
        }
        let alone = String(decoding: single.endpoints.healthResponse().wholeBody, as: UTF8.self)
        #expect(alone.contains("\"nut\":{\"accepted\":0,\"connections\":0,\"listen\":\"127.0.0.1:0\"}"), "\(alone)")
        #expect(!alone.contains("\"snmp\""), "no snmp.listen: no section")
        await single.close()

        let servers = try ServersHarness(servers: [("a", ClientStub()), ("b", ClientStub())]) { configuration in
            configuration.nut.listen = "127.0.0.1:0"
            configuration.nut.allowAnonymous = true
        }
        let fleet = try await servers.get("/health").text
        #expect(fleet.contains("\"nut\":{\"accepted\":0,\"connections\":0,\"listen\":\"127.0.0.1:0\"}"), "\(fleet)")
        #expect(fleet.contains("\"servers\":["), "the report of several servers")
        await servers.exporter.close()
    }

    @Test func theNUTServerChecksPasswordsOnTheWebConfigurationsPool() async throws {
        let hash = try #require(BCrypt.hash(password: "scrape-pw", setting: "$2b$04$abcdefghijklmnopqrstuu"))
        let security = try loadWebSecurity(path: "/web.yml", files: .inMemory(["/web.yml": "basic_auth_users:\n  prom: \(hash)\n"]))
        let pool = try #require(security.passwords, "basic_auth_users check their hashes on a pool the web security names")
        let exporter = try Self.exporter({ configuration in
            configuration.nut.listen = "127.0.0.1:0"
            configuration.nut.allowAnonymous = true
        }, webSecurity: security)
        #expect(try #require(exporter.nut).passwords === pool, "one pool bounds bcrypt's CPU for HTTP and NUT")
        await exporter.close()

        let alone = try Self.exporter { configuration in
            configuration.nut.listen = "127.0.0.1:0"
            configuration.nut.allowAnonymous = true
        }
        #expect(try #require(alone.nut).passwords !== pool, "without a web configuration the NUT server has its own")
        await alone.close()
    }
}
