import Foundation
import Testing
import WPTestThreads
import WPCollector
import WPRuntime
import WPConfig
import WPLogging
import WPServer
import WPSimulator
import WPScheduler
import WPSNMP
import WPTestSupport
@testable import WPExporter
import WPSNMPFrontEnd

/// The exporter with `snmp.listen`: net-snmp's tools read the UPS-MIB of each UPS from the
/// same readings as `/metrics`, selecting a UPS with `community@name` or an SNMPv3 context.
@Suite(.ownThreads, .timeLimit(.minutes(4)),
       .enabled(if: ["snmpget", "snmpwalk"].allSatisfy { ChildProcess.executable(named: $0) != nil },
                "net-snmp's snmpget and snmpwalk are not installed: skipped"))
struct SNMPServerTests {
    static let community = "c0mmunity-Xy"

    private static func run(_ tool: String, _ arguments: [String], port: Int, home: String, _ oids: String...) async throws
        -> (status: Int32, output: String, error: String) {
        let path = try #require(ChildProcess.executable(named: tool))
        let child = try ChildProcess(path, ["-m", "", "-On", "-t", "2", "-r", "0"] + arguments + ["127.0.0.1:\(port)"] + oids,
                                     environment: ["HOME": home, "SNMP_PERSISTENT_DIR": home, "SNMPCONFPATH": home])
        let status = await child.exitStatus(limit: .seconds(60))
        return (status, child.standardOutput, child.standardError)
    }

    @Test func netSNMPReadsEachUPSAsMetricsShowsIt() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("wpexporter-snmp-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let users = directory + "/snmp-users.yml"
        try """
            communities:
              - community: \(Self.community)
            users:
              reader:
                auth_password: auth-pass-123
                priv_password: priv-pass-456
              legacy:
                auth_protocol: sha
                auth_password: legacy-pass-123
                priv_password: legacy-pass-456
            """.write(toFile: users, atomically: true, encoding: .utf8)
        let harness = try await ExporterHarness(devices: 2, configureExporter: { configuration in
            configuration.snmp.listen = "127.0.0.1:0"
            configuration.snmp.usersFile = users
            configuration.snmp.systemName = "ups-gateway"
            configuration.snmp.systemContact = "Facilities <ops@example.com>"
            configuration.snmp.systemLocation = "Hall 2, room 014"
        })
        let snmp = try #require(harness.exporter.snmp)
        let running = Task { try await snmp.server.run() }
        defer { running.cancel() }
        let port = try await snmp.server.waitUntilListening().port
        await harness.exporter.collector.collect()
        let samples = try await harness.scrape()
        let served = snmp.source.upsValues()
        #expect(served.count == 2)
        let (first, second) = (served[0].name, served[1].name)
        // RFC 1628's alarm table: ids from 1, one per row; alarms present at the start have time 0.
        let alarms = served.flatMap(\.values.alarms)
        #expect(!alarms.isEmpty, "the simulator has a UPS on battery")
        for ups in served where !ups.values.alarms.isEmpty {
            #expect(ups.values.alarms.map(\.id) == Array(1...UInt32(ups.values.alarms.count)), "\(ups.values.alarms)")
            #expect(ups.values.alarms.allSatisfy { $0.time == 0 })
        }

        let get = try await Self.run("snmpget", ["-v", "2c", "-c", Self.community], port: port, home: directory,
                                     "1.3.6.1.2.1.33.1.1.5.0", "1.3.6.1.2.1.33.1.2.4.0", "1.3.6.1.2.1.1.5.0")
        #expect(get.status == 0, "\(get.error)")
        #expect(get.output.contains(".1.3.6.1.2.1.33.1.1.5.0 = STRING: \"\(first)\""), "\(get.output)")
        // Without a selector the agent names itself (snmp.system.name), though it answers for the first UPS.
        #expect(get.output.contains(".1.3.6.1.2.1.1.5.0 = STRING: \"ups-gateway\""), "\(get.output)")
        let device = harness.simulator.devices[0].id
        let charge = try #require(Exposition.value(samples, "winpower_device_battery_capacity", device: device))
        #expect(get.output.contains(".1.3.6.1.2.1.33.1.2.4.0 = INTEGER: \(Int(charge.rounded()))"), "\(get.output) vs \(charge)")

        let selected = try await Self.run("snmpget", ["-v", "1", "-c", "\(Self.community)@\(second)"], port: port, home: directory,
                                          "1.3.6.1.2.1.33.1.1.5.0")
        #expect(selected.output.contains("STRING: \"\(second)\""), "\(selected.output)\(selected.error)")
        let system = try await Self.run("snmpget", ["-v", "2c", "-c", "\(Self.community)@\(second)"], port: port, home: directory,
                                        "1.3.6.1.2.1.1.4.0", "1.3.6.1.2.1.1.5.0", "1.3.6.1.2.1.1.6.0")
        #expect(system.output.contains(".1.3.6.1.2.1.1.4.0 = STRING: \"Facilities <ops@example.com>\""), "\(system.output)")
        #expect(system.output.contains(".1.3.6.1.2.1.1.5.0 = STRING: \"\(second)\""), "a selected UPS names itself: \(system.output)")
        #expect(system.output.contains(".1.3.6.1.2.1.1.6.0 = STRING: \"Hall 2, room 014\""), "\(system.output)")

        let unknown = try await Self.run("snmpget", ["-v", "2c", "-c", "\(Self.community)@no-such-ups"], port: port, home: directory,
                                         "1.3.6.1.2.1.33.1.1.5.0")
        #expect(unknown.status != 0)
        #expect(snmp.agent.statistics.unknownContexts >= 1)

        let version3 = try await Self.run("snmpget", ["-v", "3", "-l", "authPriv", "-u", "reader", "-a", "SHA-256", "-A", "auth-pass-123",
                                                      "-x", "AES", "-X", "priv-pass-456", "-n", second], port: port, home: directory,
                                          "1.3.6.1.2.1.33.1.1.5.0")
        #expect(version3.output.contains("STRING: \"\(second)\""), "\(version3.output)\(version3.error)")
        // users_file's auth_protocol: the legacy user authenticates with HMAC-96-SHA-1 only.
        let legacy = ["-v", "3", "-l", "authPriv", "-u", "legacy", "-A", "legacy-pass-123", "-x", "AES", "-X", "legacy-pass-456", "-n", second]
        let sha1 = try await Self.run("snmpget", legacy + ["-a", "SHA"], port: port, home: directory, "1.3.6.1.2.1.33.1.1.5.0")
        #expect(sha1.output.contains("STRING: \"\(second)\""), "\(sha1.output)\(sha1.error)")
        let sha256 = try await Self.run("snmpget", legacy + ["-a", "SHA-256"], port: port, home: directory, "1.3.6.1.2.1.33.1.1.5.0")
        #expect(sha256.status != 0 && sha256.error.contains("Authentication failure"), "\(sha256.error)")

        let walk = try await Self.run("snmpwalk", ["-v", "2c", "-c", Self.community], port: port, home: directory, "1.3.6.1.2.1.33")
        #expect(walk.status == 0 && walk.output.split(separator: "\n").count > 20, "\(walk.output)")

        let engine = try String(contentsOfFile: harness.dataDirectory + "/snmp-engine", encoding: .utf8)
        #expect(engine.contains("boots 1"), "\(engine)")
        // /health: the bound port, the UPSs, the engine ID a trap receiver configures, what was answered and refused.
        let health = try await harness.get("/health")
        let document = try #require(try JSONSerialization.jsonObject(with: Data(health.text.utf8)) as? [String: Any])
        let agent = try #require(document["snmp"] as? [String: Any], "\(health.text)")
        #expect(agent["listen"] as? String == "127.0.0.1:\(port)")
        #expect(agent["ups"] as? Int == 2)
        #expect(agent["engine_id"] as? String == snmp.engine.engineID.map { String(format: "%02x", $0) }.joined())
        #expect(engine.contains(try #require(agent["engine_id"] as? String)), "the ID the engine file keeps")
        #expect(agent["engine_boots"] as? Int == 1)
        #expect((agent["answered"] as? Int ?? 0) >= 4 && (agent["refused"] as? Int ?? 0) >= 1, "\(agent)")
        #expect(!health.text.contains(Self.community) && !health.text.contains("auth-pass-123"))
        let metrics = try await harness.get("/metrics").text
        #expect(metrics.contains("winpower_exporter_snmp_requests_total{outcome=\"answered\"}"), "\(metrics.suffix(800))")
        #expect(!harness.logs.allText.contains(Self.community) && !metrics.contains(Self.community))
        #expect(!harness.logs.allText.contains("priv-pass-456") && !harness.logs.allText.contains("legacy-pass"))
        await harness.shutdown()
    }


    /// The simulator has a UPS on battery: the exporter's first publish sends its
    /// upsTrapOnBattery, naming the UPS, to snmptrapd.
    @Test(.enabled(if: trapdInstalled, "snmptrapd is not installed: skipped"))
    func snmptrapdReceivesTheOnBatteryTrapOfAUPSOnBattery() async throws {
        try await Self.withTrapReceiver("wpexporter-traps") { trapd, users in
            let harness = try await ExporterHarness(devices: 2, configureExporter: { configuration in
                configuration.snmp.listen = "127.0.0.1:0"
                configuration.snmp.usersFile = users
            })
            let snmp = try #require(harness.exporter.snmp)
            let running = Task { try await snmp.server.run() }
            defer { running.cancel() }
            _ = try await snmp.server.waitUntilListening()
            await harness.exporter.collector.collect()
            snmp.notify()
            let onBattery = try #require(snmp.source.upsValues().first { $0.values.outputSource == .battery }?.name)
            let received = try await NamedThread.run(name: "test-trapd") {
                trapd.waitForOutput(limit: .seconds(60)) { $0.contains("OID: .1.3.6.1.2.1.33.2.1") && $0.contains("\"\(onBattery)\"") }
            }
            #expect(received.satisfied, "\(trapd.standardOutput)")
            #expect(snmp.sender?.statistics.sent ?? 0 >= 1)
            await harness.shutdown()
        }
    }

    /// A scheduled battery self-test (mode 5 from 10 s to 30 s) is a test for snmptrapd too: the
    /// test-in-progress alarm's upsTrapAlarmEntryAdded, then upsTrapTestCompleted, and never
    /// upsTrapOnBattery (which a NOC driven by traps pages on).
    @Test(.enabled(if: trapdInstalled, "snmptrapd is not installed: skipped"))
    func aSelfTestSendsTestTrapsAndNoOnBatteryTrap() async throws {
        try await Self.withTrapReceiver("wpexporter-test-traps") { trapd, users in
            let harness = try await ExporterHarness(devices: 1, configure: { simulator in
                simulator.outageSchedule = [OutageWindow(device: 0, start: 10, length: 20, role: .batteryTest)]
            }, configureExporter: { configuration in
                configuration.snmp.listen = "127.0.0.1:0"
                configuration.snmp.usersFile = users
            })
            let snmp = try #require(harness.exporter.snmp)
            let running = Task { try await snmp.server.run() }
            defer { running.cancel() }
            _ = try await snmp.server.waitUntilListening()
            func received(_ oid: String) async throws -> Bool {
                try await NamedThread.run(name: "test-trapd") {
                    trapd.waitForOutput(limit: .seconds(60)) { text in
                        text.components(separatedBy: "OID: \(oid)").dropFirst().contains { !($0.first?.isNumber ?? false) }
                    }
                }.satisfied
            }
            for advance in [0, 15] {   // on mains, then in the test
                harness.clock.advance(by: .seconds(advance))
                await harness.exporter.collector.collect()
                snmp.notify()
            }
            #expect(snmp.source.upsValues().first?.values.outputSource == .normal)
            #expect(try await received(".1.3.6.1.2.1.33.2.3"), "upsTrapAlarmEntryAdded (test in progress): \(trapd.standardOutput)")
            harness.clock.advance(by: .seconds(20))   // t = 35 s: the test is over
            await harness.exporter.collector.collect()
            snmp.notify()
            #expect(try await received(".1.3.6.1.2.1.33.2.2"), "upsTrapTestCompleted: \(trapd.standardOutput)")
            let onBattery = trapd.standardOutput.components(separatedBy: "OID: .1.3.6.1.2.1.33.2.1").dropFirst()
                .filter { !($0.first?.isNumber ?? false) }
            #expect(onBattery.isEmpty, "no upsTrapOnBattery: \(trapd.standardOutput)")
            await harness.shutdown()
        }
    }

    /// Whether snmptrapd can be run (the tests that need it are skipped otherwise).
    static let trapdInstalled = ChildProcess.executable(named: "snmptrapd") != nil
        || FileManager.default.isExecutableFile(atPath: "/usr/sbin/snmptrapd")

    /// Runs `body` with snmptrapd started in a fresh directory named after `prefix` and the users
    /// file that makes the agent send it traps (``writeUsersFile(in:trapPort:)``); snmptrapd is
    /// stopped and the directory removed after.
    static func withTrapReceiver(_ prefix: String, _ body: (_ trapd: ChildProcess, _ usersFile: String) async throws -> Void) async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("\(prefix)-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let trapd = try await startTrapReceiver(in: directory)
        defer { trapd.signal(SIGTERM) }
        let users = try writeUsersFile(in: directory, trapPort: try #require(await trapd.waitForUDPPort(),
                                                                             "snmptrapd bound no port: \(trapd.standardError)"))
        try await body(trapd, users)
    }

    /// snmptrapd in the foreground on a port of its own choosing (read back from /proc by the
    /// caller), logging every trap of community traps-c0mm to its standard output.
    static func startTrapReceiver(in directory: String) async throws -> ChildProcess {
        try "authCommunity log traps-c0mm\n".write(toFile: directory + "/snmptrapd.conf", atomically: true, encoding: .utf8)
        let path = ChildProcess.executable(named: "snmptrapd") ?? "/usr/sbin/snmptrapd"
        let trapd = try ChildProcess(path, ["-f", "-Lo", "-C", "-c", directory + "/snmptrapd.conf", "-m", "", "-M", directory, "-n", "-On",
                                            "udp:127.0.0.1:0"],
                                     environment: ["HOME": directory, "SNMP_PERSISTENT_DIR": directory, "SNMPCONFPATH": directory])
        let ready = try await NamedThread.run(name: "test-trapd") { trapd.waitForOutput(limit: .seconds(60)) { $0.contains("NET-SNMP version") } }
        #expect(ready.satisfied, "snmptrapd did not start: \(trapd.standardError)")
        return trapd
    }

    /// The SNMP users file: the test community, and snmptrapd on `trapPort` as the receiver.
    static func writeUsersFile(in directory: String, trapPort: Int) throws -> String {
        let users = directory + "/snmp-users.yml"
        try """
            communities:
              - community: \(Self.community)
            traps:
              - address: 127.0.0.1:\(trapPort)
                community: traps-c0mm
            """.write(toFile: users, atomically: true, encoding: .utf8)
        return users
    }

    /// The informs' acknowledgements come back to a socket of their own: on the agent's address,
    /// so an agent on loopback opens no port on any other interface. (Nothing is sent here.)
    @Test func theInformsSocketListensOnTheAgentsAddressOnly() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("wpexporter-informs-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let users = directory + "/snmp-users.yml"
        try """
            communities:
              - community: \(Self.community)
            traps:
              - address: 127.0.0.1:162
                community: traps-c0mm
                inform: true
            """.write(toFile: users, atomically: true, encoding: .utf8)
        let harness = try await ExporterHarness(devices: 1, configureExporter: { configuration in
            configuration.snmp.listen = "127.0.0.1:0"
            configuration.snmp.usersFile = users
        })
        let snmp = try #require(harness.exporter.snmp)
        let informSocket = try #require(snmp.informSocket)
        let running = Task { try await informSocket.run() }
        defer { running.cancel() }
        #expect(try await informSocket.waitUntilListening().host == "127.0.0.1")
        await harness.shutdown()
    }

    /// How the outage test configures its one WinPower server.
    enum Shape: String, CaseIterable, Sendable {
        /// A plain `winpower:` section.
        case winpower
        /// One entry of `servers:`.
        case servers
        /// `winpower:`, reloaded into `servers:` before mains fail and back once they return.
        case reloaded
    }

    /// What a user runs: the exporter's collections on their schedule (`runCollection`, no
    /// call to the notifier by hand) against a simulated UPS whose mains fail from 20 s to
    /// 50 s, with snmptrapd as the receiver. Each collection is followed by the
    /// notifications it calls for, whether the server is the plain `winpower:` one, an entry
    /// of `servers:`, or reloaded from one to the other (issue 48: the plain one never sent
    /// any).
    @Test(.enabled(if: trapdInstalled, "snmptrapd is not installed: skipped"),
          arguments: Shape.allCases)
    func anOutageSendsItsTrapsFromTheRunningExporter(shape: Shape) async throws {
        try await Self.withTrapReceiver("wpexporter-outage-traps") { trapd, users in
            let harness = try await ExporterHarness(devices: 1, configure: { simulator in
                simulator.outageSchedule = [OutageWindow(device: 0, start: 20, length: 30)]
            }, configureExporter: { configuration in
                configuration.snmp.listen = "127.0.0.1:0"
                configuration.snmp.usersFile = users
                if shape == .servers { configuration.servers = [ServerEntry(name: "site-a", winPower: configuration.winPower)] }
            }, clientsForReloads: shape == .reloaded)
            let snmp = try #require(harness.exporter.snmp)
            let (trigger, stop) = AsyncStream<Void>.makeStream()
            let exporter = harness.exporter
            let plain = exporter.configuration
            var underServers = plain
            underServers.servers = [ServerEntry(name: "site-a", winPower: plain.winPower)]
            let running = Task { try await exporter.runCollection(until: { for await _ in trigger {} }) }
            // Collections completed by the pipeline running now (a reload starts a new one).
            func collected(_ count: Int) async {
                let scheduler = exporter.pipelines[0].scheduler
                await ServersHarness.until("collection \(count)") { scheduler.statistics.completed >= count }
            }
            func received(_ oid: String, _ times: Int) async throws -> Bool {
                try await NamedThread.run(name: "test-trapd") {
                    trapd.waitForOutput(limit: .seconds(60)) { text in
                        // snmpTrapOID.0's value, not a longer OID it begins.
                        text.components(separatedBy: "OID: \(oid)").dropFirst().filter { !($0.first?.isNumber ?? false) }.count >= times
                    }
                }.satisfied
            }

            await collected(1) // t = 0: on mains, nothing to say
            #expect(snmp.sender?.statistics.sent == 0)
            if shape == .reloaded {
                _ = try await exporter.apply(underServers)
                await collected(1) // the new pipeline's first collection
            }
            #expect(exporter.pipelines.map(\.name) == [shape == .winpower ? "" : "site-a"])
            harness.clock.advance(by: .seconds(25))
            await collected(2) // t = 25 s: on battery since 20 s
            // Under `servers:` the notifications follow the merge, at most a second after the
            // collection (the skipped ticks' republish merged just before it).
            harness.clock.advance(by: .seconds(1))
            let name = try #require(snmp.source.upsValues().first?.name)
            #expect(try await received(".1.3.6.1.2.1.33.2.1", 1), "upsTrapOnBattery: \(trapd.standardOutput)")
            #expect(trapd.standardOutput.contains("STRING: \"\(name)\""), "each trap names its UPS: \(trapd.standardOutput)")
            #expect(try await received(".1.3.6.1.2.1.33.2.3", 1), "upsTrapAlarmEntryAdded: \(trapd.standardOutput)")
            var collections = 3
            if shape == .reloaded {
                _ = try await exporter.apply(plain)
                #expect(exporter.pipelines.map(\.name) == [""])
                await collected(1)
                collections = 2
            }
            harness.clock.advance(by: .seconds(34))
            await collected(collections) // t = 60 s: mains back
            harness.clock.advance(by: .seconds(1))
            #expect(try await received(".1.3.6.1.2.1.33.2.4", 1), "upsTrapAlarmEntryRemoved: \(trapd.standardOutput)")
            // A notification may leave between the two reads (a merge republishing): the scraped
            // counter lies between the sender's count before and after the scrape.
            let before = snmp.sender?.statistics.sent ?? -1
            let sent = try #require(try await harness.scrape()["winpower_exporter_snmp_notifications_total{outcome=\"sent\"}"])
            let after = snmp.sender?.statistics.sent ?? -1
            #expect(sent >= 3 && before <= Int(sent) && Int(sent) <= after, "the counter a user watches: \(before) ≤ \(sent) ≤ \(after)")

            stop.finish()
            try await running.value
            await harness.shutdown()
        }
    }

    @Test func aMissingUsersFileOrAnInvalidListenIsAConfigurationProblem() {
        var configuration = ExporterConfiguration()
        configuration.snmp.listen = "127.0.0.1:1161"
        #expect(configuration.problems().compactMap(\.key).filter { $0.hasPrefix("snmp.") } == ["snmp.listen"])
        configuration.snmp.usersFile = "/nonexistent"
        configuration.snmp.listen = "[::1"
        #expect(configuration.problems().map(\.message).contains { $0.contains("is not host[:port]") })
        configuration.snmp.listen = ":1161"
        #expect(configuration.snmp.address?.host == "0.0.0.0" && configuration.snmp.address?.port == 1161)
        configuration.snmp.listen = "[::1]"
        #expect(configuration.snmp.address?.host == "::1" && configuration.snmp.address?.port == 161)
    }
}
