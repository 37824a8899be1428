import Foundation
import Synchronization
import Testing
import WPTestThreads
import WPLogging
import WPRuntime
import WPServer
import WPTestSupport
@testable import WPSNMP

/// The UPS-MIB notifications: what a change of readings calls for, the sender's rate limit and
/// encodings, and net-snmp's snmptrapd receiving them (SNMPv2c and SNMPv3 authPriv).
@Suite(.ownThreads, .timeLimit(.minutes(3))) struct NotificationTests {
    static func values(onBattery: Bool, alarms: [UPSMIBValues.Alarm] = [], test: UPSMIB.TestResult? = nil) -> UPSMIBValues {
        var values = UPSMIBValues()
        values.outputSource = onBattery ? .battery : .normal
        values.secondsOnBattery = onBattery ? 30 : 0
        values.runtimeRemaining = 1_200
        values.lowBatteryTime = 120
        values.alarms = alarms
        values.testResult = test
        values.testID = test == nil ? nil : test == .inProgress ? .quickBatteryTest : .noTestsInitiated
        return values
    }

    @Test func onBatteryIsSentAtOnceThenEveryMinuteWhileItLasts() {
        var notifier = UPSNotifier()
        #expect(notifier.update(Self.values(onBattery: false), now: .seconds(0)).isEmpty)
        let first = notifier.update(Self.values(onBattery: true), now: .seconds(10))
        #expect(first.map(\.trap) == [UPSMIB.Traps.onBattery])
        #expect(first.first?.varBinds == [VarBind("1.3.6.1.2.1.33.1.2.3.0", .integer(20)), VarBind("1.3.6.1.2.1.33.1.2.2.0", .integer(30)),
                                          VarBind("1.3.6.1.2.1.33.1.9.7.0", .integer(2))])
        #expect(notifier.update(Self.values(onBattery: true), now: .seconds(69)).isEmpty)
        #expect(notifier.update(Self.values(onBattery: true), now: .seconds(70)).map(\.trap) == [UPSMIB.Traps.onBattery])
        #expect(notifier.update(Self.values(onBattery: false), now: .seconds(75)).isEmpty)
        #expect(notifier.update(Self.values(onBattery: true), now: .seconds(76)).map(\.trap) == [UPSMIB.Traps.onBattery])
    }

    @Test func alarmRowsAddedAndRemovedAndAFinishedTest() {
        var notifier = UPSNotifier()
        _ = notifier.update(Self.values(onBattery: false, alarms: [.init(id: 1, alarm: .fanFailure)], test: .inProgress), now: .zero)
        let changed = notifier.update(Self.values(onBattery: false, alarms: [.init(id: 2, alarm: .lowBattery)], test: .donePass), now: .seconds(5))
        #expect(changed.map(\.trap) == [UPSMIB.Traps.testCompleted, UPSMIB.Traps.alarmEntryAdded, UPSMIB.Traps.alarmEntryRemoved])
        #expect(changed[1].varBinds == [VarBind("1.3.6.1.2.1.33.1.6.2.1.1.2", .integer(2)),
                                        VarBind("1.3.6.1.2.1.33.1.6.2.1.2.2", .objectIdentifier("1.3.6.1.2.1.33.1.6.3.3"))])
        #expect(changed[2].varBinds.last == VarBind("1.3.6.1.2.1.33.1.6.2.1.2.1", .objectIdentifier("1.3.6.1.2.1.33.1.6.3.16")))
        #expect(changed[0].varBinds.contains(VarBind("1.3.6.1.2.1.33.1.7.3.0", .integer(1))))
        // upsTestId names the test that completed, though the agent answers "no test" once it ended.
        #expect(changed[0].varBinds.first == VarBind("1.3.6.1.2.1.33.1.7.1.0", .objectIdentifier("1.3.6.1.2.1.33.1.7.7.4")),
                "\(changed[0].varBinds)")
    }

    @Test func theSenderEncodesTrapsAndLimitsTheRatePerReceiver() throws {
        let sent = Mutex<[(bytes: [UInt8], host: String, port: Int)]>([])
        let clock = Mutex(Duration.zero)
        let sender = SNMPNotificationSender(configuration: .init(receivers: [.init(host: "127.0.0.1", port: 1162, security: .community("traps"))],
                                                                 maxPerMinute: 2),
                                            uptime: { 4_200 }, now: { clock.withLock { $0 } }) { bytes, host, port in
            sent.withLock { $0.append((bytes, host, port)) }
            return true
        }
        let notification = SNMPNotification(trap: UPSMIB.Traps.onBattery, varBinds: [])
        sender.send([notification, notification, notification])
        #expect(sender.statistics == { var s = SNMPNotificationSender.Statistics(); s.sent = 2; s.rateLimited = 1; return s }())
        clock.withLock { $0 = .seconds(60) }
        sender.send([notification])
        #expect(sender.statistics.sent == 3)
        let first = try SNMPMessage(decoding: try #require(sent.withLock { $0.first?.bytes }))
        #expect(first.version == .v2c && first.community == Array("traps".utf8) && first.pdu.type == BERTag.snmpV2Trap)
        #expect(first.pdu.varBinds == [VarBind(SNMPNotification.sysUpTimeInstance, .timeTicks(4_200)),
                                       VarBind(SNMPNotification.snmpTrapOIDInstance, .objectIdentifier(UPSMIB.Traps.onBattery))])
        #expect(sent.withLock { $0.allSatisfy { $0.host == "127.0.0.1" && $0.port == 1162 } })
    }

    @Test func anUnacknowledgedInformIsResentThenGivenUp() async throws {
        let clock = ManualClock()
        let informs = SNMPInforms(configuration: .init(timeout: .seconds(5), retries: 2), clock: clock)
        let sent = Mutex(0)
        informs.transport = { _, _, _ in sent.withLock { $0 += 1 }; return true }
        #expect(informs.inform([1, 2, 3], requestID: 7, host: "127.0.0.1", port: 162))
        #expect(!informs.inform([1, 2, 3], requestID: 7, host: "127.0.0.1", port: 162), "the same request id twice")
        for expected in [2, 3] {
            await clock.waitForSleepers(1)
            clock.advance(by: .seconds(5))
            await informs.waitUntil { $0.sent == expected }
        }
        await clock.waitForSleepers(1)
        clock.advance(by: .seconds(5))
        await informs.waitUntil { $0.failed == 1 }
        #expect(informs.statistics.resent == 2 && informs.pendingCount == 0 && sent.withLock { $0 } == 3)
    }

    /// An SNMPv3 inform: a discovery probe first, the receiver's report gives its engine, the
    /// inform goes out authenticated and encrypted with keys localized to that engine, and
    /// only a Response with a valid MAC from the receiver's address acknowledges it. Given
    /// up, the receiver's engine is forgotten and the next inform probes again.
    @Test func anSNMPv3InformDiscoversTheReceiversEngineAndNeedsAnAuthenticResponse() async throws {
        let clock = ManualClock()
        let informs = SNMPInforms(configuration: .init(timeout: .seconds(5), retries: 1), clock: clock)
        let sent = Mutex<[[UInt8]]>([])
        informs.transport = { bytes, _, _ in sent.withLock { $0.append(bytes) }; return true }
        let credentials = try USMCredentials(name: "informer", authenticationPassword: "inform-auth-1", privacyPassword: "inform-priv-2")
        #expect(credentials.level == .authPriv)
        // The receiver: an engine of its own, the user localized to it.
        let receiverID = SNMPEngine.engineID(random: [1, 2, 3, 4, 5, 6, 7, 8])
        let receiverUser = try USMUser(name: "informer", authenticationPassword: "inform-auth-1", privacyPassword: "inform-priv-2",
                                       engineID: receiverID)
        let receiver = USM(engine: SNMPEngine(engineID: receiverID, boots: 3, time: { 1_000 }), users: [receiverUser], saltSeed: 7)

        let pdu = PDU(type: BERTag.informRequest, requestID: 41, varBinds: [VarBind("1.3.6.1.2.1.1.3.0", .timeTicks(5))])
        #expect(informs.inform(pdu, contextName: "rack-a", credentials: credentials, host: "127.0.0.1", port: 162))
        let probe = try SNMPv3Message(decoding: try #require(sent.withLock { $0.first }))
        #expect(probe.engineID.isEmpty && probe.userName.isEmpty && probe.flags == [.reportable])
        guard case .report(let report) = receiver.process(probe, bytes: sent.withLock { $0[0] }) else {
            Issue.record("the receiver reports its engine to a probe")
            return
        }
        _ = await informs.handle(report, from: "127.0.0.2:162")
        #expect(informs.statistics.discovered == 0 && sent.withLock { $0.count } == 1, "a report from another address discovers nothing")
        _ = await informs.handle(report, from: "127.0.0.1:162")
        #expect(informs.statistics.discovered == 1)
        let informBytes = try #require(sent.withLock { $0.count == 2 ? $0[1] : nil }, "the inform goes out once the engine is known")
        let inform = try SNMPv3Message(decoding: informBytes)
        #expect(inform.engineID == receiverID && inform.boots == 3 && inform.flags.contains(.encrypted))
        guard case .request(let message, let scoped, let user) = receiver.process(inform, bytes: informBytes) else {
            Issue.record("the receiver authenticates and decrypts the inform")
            return
        }
        #expect(scoped.pdu.type == BERTag.informRequest && scoped.pdu.requestID == 41 && scoped.contextName == Array("rack-a".utf8))
        let response = try #require(receiver.response(to: message, scoped: scoped, user: user,
                                                      pdu: PDU(type: BERTag.response, requestID: 41, varBinds: []),
                                                      varBindBytes: scoped.pdu.varBinds.flatMap(BERWriter.varBind)))
        var forged = response
        forged[forged.count - 1] ^= 0x01
        _ = await informs.handle(forged, from: "127.0.0.1:162")
        #expect(informs.statistics.acknowledged == 0 && informs.pendingCount == 1, "a Response that fails its MAC acknowledges nothing")
        _ = await informs.handle(response, from: "127.0.0.1:162")
        #expect(informs.statistics.acknowledged == 1 && informs.pendingCount == 0)

        // Unanswered: resent once, given up, and the engine forgotten (the next inform probes).
        let second = PDU(type: BERTag.informRequest, requestID: 42, varBinds: [])
        #expect(informs.inform(second, contextName: "", credentials: credentials, host: "127.0.0.1", port: 162))
        #expect(try SNMPv3Message(decoding: sent.withLock { $0.last! }).engineID == receiverID, "the known engine is used at once")
        let before = informs.statistics.sent
        await clock.waitForSleepers(1)
        clock.advance(by: .seconds(5))
        await informs.waitUntil { $0.sent == before + 1 }
        await clock.waitForSleepers(1)
        clock.advance(by: .seconds(5))
        await informs.waitUntil { $0.failed == 1 }
        #expect(informs.statistics.resent == 1)
        #expect(informs.inform(PDU(type: BERTag.informRequest, requestID: 43, varBinds: []), contextName: "", credentials: credentials,
                               host: "127.0.0.1", port: 162))
        #expect(try SNMPv3Message(decoding: sent.withLock { $0.last! }).engineID.isEmpty, "a probe again after the failure")
    }

    @Test func aResponseFromTheReceiverAcknowledgesAnInform() async throws {
        let clock = ManualClock()
        let informs = SNMPInforms(configuration: .init(), clock: clock)
        informs.transport = { _, _, _ in true }
        informs.inform([0], requestID: 9, host: "127.0.0.1", port: 162)
        let response = SNMPMessage(version: .v2c, community: Array("traps".utf8), pdu: .response(requestID: 9, varBinds: [])).encoded()
        #expect(await informs.handle(response, from: "127.0.0.2:162") == nil)
        #expect(informs.statistics.unmatched == 1 && informs.pendingCount == 1, "another address acknowledges nothing")
        _ = await informs.handle(response, from: "127.0.0.1:162")
        #expect(informs.statistics.acknowledged == 1 && informs.pendingCount == 0)
        _ = await informs.handle(response, from: "127.0.0.1:162")
        #expect(informs.statistics.unmatched == 2, "a late duplicate")
    }

    @Test func aServerSendsOnlyWhileServingAndOnlyToAddressLiterals() async throws {
        let view = fullView()
        let server = DatagramServer(configuration: .init(host: "127.0.0.1", port: 0),
                                    protocol: SNMPAgent(configuration: .init(communities: ["public"])) { view }, logger: .disabled)
        #expect(!server.send([1], to: "127.0.0.1", port: 9))
        let task = Task { try await server.run() }
        defer { task.cancel() }
        _ = try await server.waitUntilListening()
        #expect(!server.send([1], to: "localhost", port: 9), "names are never resolved")
        #expect(!server.send([1], to: "127.0.0.1", port: 70_000))
    }
}

/// snmptrapd receives the agent's notifications, SNMPv2c and SNMPv3 authPriv.
@Suite(.ownThreads, .timeLimit(.minutes(3)),
       .enabled(if: ChildProcess.executable(named: "snmptrapd") != nil || FileManager.default.isExecutableFile(atPath: "/usr/sbin/snmptrapd"),
                "net-snmp's snmptrapd is not installed: skipped"))
struct SNMPTrapReceiverTests {

    /// snmptrapd's `informer` has keys localized to snmptrapd's own engine (no `-e`): the
    /// SNMPv3 inform discovers that engine first, then is acknowledged with a valid MAC. The
    /// trap's user authenticates with HMAC-96-SHA-1, the informer with HMAC-384-SHA-512.
    @Test func snmptrapdReceivesAnOnBatteryTrapInBothVersionsAndAcknowledgesInformsInBoth() async throws {
        let engineID = SNMPEngine.engineID(random: [9, 8, 7, 6, 5, 4, 3, 2])
        let engine = SNMPEngine(engineID: engineID, boots: 1, time: { 5 })
        let user = try USMUser(name: "trapper", authenticationProtocol: .sha1, authenticationPassword: "trap-auth-123",
                               privacyPassword: "trap-priv-456", engineID: engineID)
        let home = FileManager.default.temporaryDirectory.appendingPathComponent("snmptrapd-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: home, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: home) }
        let hex = engineID.map { String($0, radix: 16).count == 1 ? "0" + String($0, radix: 16) : String($0, radix: 16) }.joined()
        try ("authCommunity log traps\ncreateUser -e 0x\(hex) trapper SHA trap-auth-123 AES trap-priv-456\nauthUser log trapper priv\n"
             + "createUser informer SHA-512 inform-auth-123 AES inform-priv-456\nauthUser log informer priv\n")
            .write(toFile: home + "/snmptrapd.conf", atomically: true, encoding: .utf8)
        let path = ChildProcess.executable(named: "snmptrapd") ?? "/usr/sbin/snmptrapd"
        let trapd = try ChildProcess(path, ["-f", "-Lo", "-C", "-c", home + "/snmptrapd.conf", "-m", "", "-M", home, "-n", "-On",
                                            "udp:127.0.0.1:0"],
                                     environment: ["HOME": home, "SNMP_PERSISTENT_DIR": home, "SNMPCONFPATH": home])
        defer { trapd.signal(SIGTERM) }
        let ready = try await NamedThread.run(name: "test-trapd") { trapd.waitForOutput(limit: .seconds(60)) { $0.contains("NET-SNMP version") } }
        #expect(ready.satisfied, "snmptrapd did not start: \(trapd.standardError)")
        let port = try #require(await trapd.waitForUDPPort(), "snmptrapd bound no port: \(trapd.standardError)")

        let view = fullView()
        let server = DatagramServer(configuration: .init(host: "127.0.0.1", port: 0),
                                    protocol: SNMPAgent(configuration: .init(communities: ["public"])) { view }, logger: .disabled)
        let task = Task { try await server.run() }
        defer { task.cancel() }
        _ = try await server.waitUntilListening()
        let informer = try USMCredentials(name: "informer", authenticationProtocol: .sha512, authenticationPassword: "inform-auth-123",
                                          privacyPassword: "inform-priv-456")
        let informs = SNMPInforms(configuration: .init(timeout: .seconds(10), retries: 3), clock: ContinuousClock())
        let informSocket = DatagramServer(configuration: .init(host: "127.0.0.1", port: 0), protocol: informs, logger: .disabled)
        let informTask = Task { try await informSocket.run() }
        defer { informTask.cancel() }
        _ = try await informSocket.waitUntilListening()
        informs.transport = { bytes, host, port in informSocket.send(bytes, to: host, port: port) }
        let sender = SNMPNotificationSender(configuration: .init(receivers: [.init(host: "127.0.0.1", port: port, security: .community("traps")),
                                                                            .init(host: "127.0.0.1", port: port, security: .user(user, .authPriv)),
                                                                            .init(host: "127.0.0.1", port: port, security: .community("traps"),
                                                                                  inform: true),
                                                                            .init(host: "127.0.0.1", port: port, security: .remoteUser(informer))],
                                                                 engine: engine),
                                            uptime: { 4_200 }, now: { .zero }, informs: informs) { bytes, host, port in
            server.send(bytes, to: host, port: port)
        }
        var notifier = UPSNotifier()
        sender.send(notifier.update(NotificationTests.values(onBattery: true), now: .zero))
        #expect(sender.statistics.sent == 4 && sender.statistics.failures == 0)
        let received = try await NamedThread.run(name: "test-trapd") {
            trapd.waitForOutput(limit: .seconds(60)) { $0.components(separatedBy: "OID: .1.3.6.1.2.1.33.2.1").count == 5 }
        }
        await informs.waitUntil { $0.acknowledged + $0.failed == 2 }
        #expect(informs.statistics.acknowledged == 2, "snmptrapd acknowledges both informs: \(informs.statistics)")
        #expect(informs.statistics.discovered == 1, "snmptrapd's engine was discovered once")
        #expect(received.satisfied, "\(trapd.standardOutput)\n\(trapd.standardError)")
        #expect(received.text.contains(".1.3.6.1.2.1.33.1.2.3.0 = INTEGER: 20"), "\(received.text)")
    }
}
