import FoundationEssentials
import Testing
import WPTestThreads
import WPLogging
import WPServer
import WPTestSupport
@testable import WPSNMP

/// SNMPv3 with the user-based security model: discovery, authPriv (HMAC-192-SHA-256 and
/// AES-128-CFB), authNoPriv, and every refusal answered with its report.
@Suite(.ownThreads, .timeLimit(.minutes(3))) struct SNMPv3Tests {
    static let engineID = SNMPEngine.engineID(random: [1, 2, 3, 4, 5, 6, 7, 8])

    static func agent(time: @escaping @Sendable () -> Int32 = { 100 }) throws -> (SNMPAgent, MIBTable) {
        let view = fullView()
        let users = [try USMUser(name: "reader", authenticationPassword: "auth-pass-123", privacyPassword: "priv-pass-456",
                                 engineID: engineID),
                     try USMUser(name: "signer", authenticationPassword: "sign-pass-789", privacyPassword: nil, engineID: engineID)]
        let configuration = SNMPAgent.Configuration(communities: ["public"], engine: SNMPEngine(engineID: engineID, boots: 3, time: time),
                                                    users: users)
        return (SNMPAgent(configuration: configuration) { view }, view)
    }

    /// An authenticated GetRequest for `user` as a manager would send it.
    static func request(_ usm: USM, user: USMUser, level: SNMPSecurityLevel, oid: OID, time: Int32 = 100) -> [UInt8]? {
        var flags: SNMPv3Message.Flags = [.reportable]
        if level >= .authNoPriv { flags.insert(.authenticated) }
        if level == .authPriv { flags.insert(.encrypted) }
        let template = SNMPv3Message(messageID: 77, maxSize: 65_507, flags: flags, engineID: engineID, boots: 3, time: time,
                                     userName: Array(user.name.utf8), data: .encrypted([]))
        let scoped = SNMPv3Message.ScopedPDU(contextEngineID: engineID, contextName: [], pdu: PDU(type: BERTag.getRequest, requestID: 5, varBinds: []))
        let get = PDU(type: BERTag.getRequest, requestID: 5, varBinds: [])
        // Sealed as the agent seals: the flags lose `reportable`, so a refusal is a drop.
        return usm.response(to: template, scoped: scoped, user: user, pdu: get, varBindBytes: BERWriter.varBind(VarBind(oid, .null)))
    }

    @Test func anAuthenticatedRequestIsAnsweredAndATamperedOneGetsAWrongDigestReport() throws {
        let (agent, view) = try Self.agent()
        let usm = USM(engine: SNMPEngine(engineID: Self.engineID, boots: 3, time: { 100 }), users: agent.configuration.users, saltSeed: 9)
        for (level, user) in [(SNMPSecurityLevel.authPriv, agent.configuration.users[0]), (.authNoPriv, agent.configuration.users[1])] {
            let request = try #require(Self.request(usm, user: user, level: level, oid: "1.3.6.1.2.1.1.1.0"))
            let answer = try #require(agent.answer(request), "\(level)")
            let decoded = try SNMPv3Message(decoding: answer)
            #expect(SNMPSecurityLevel(decoded.flags) == level)
            let result = usm.process(decoded, bytes: answer)
            guard case .request(_, let scoped, _) = result else { Issue.record("\(level): the answer did not authenticate"); continue }
            #expect(scoped.pdu.type == BERTag.response)
            #expect(scoped.pdu.varBinds == [VarBind("1.3.6.1.2.1.1.1.0", view.get("1.3.6.1.2.1.1.1.0"))])

            var tampered = request
            tampered[tampered.count - 3] ^= 0x01
            #expect(agent.answer(tampered) == nil, "a tampered, non-reportable request is dropped")
        }
        #expect(agent.securityStatistics.wrongDigests + agent.securityStatistics.decryptionErrors >= 2)
        #expect(agent.statistics.answered == 2)
    }

    @Test func aUserWithoutPasswordsOfEightCharactersIsRefused() {
        #expect(throws: USMUserError.passwordTooShort(user: "u", which: "authentication")) {
            try USMUser(name: "u", authenticationPassword: "short", privacyPassword: nil, engineID: Self.engineID)
        }
        #expect(throws: USMUserError.privacyWithoutAuthentication(user: "u")) {
            try USMUser(name: "u", authenticationPassword: nil, privacyPassword: "long-enough", engineID: Self.engineID)
        }
        let error = USMUserError.passwordTooShort(user: "u", which: "privacy")
        #expect(!"\(error)".contains("short"))
    }

    @Test func withoutAnEngineSNMPv3IsABadVersion() throws {
        let view = fullView()
        let agent = SNMPAgent(configuration: .init(communities: ["public"])) { view }
        let discovery = SNMPv3Message(messageID: 1, maxSize: 65_507, flags: [.reportable], engineID: [], boots: 0, time: 0, userName: [],
                                      data: .plain(.init(contextEngineID: [], contextName: [],
                                                         pdu: PDU(type: BERTag.getRequest, requestID: 1, varBinds: []))))
        guard case .plain(let scoped) = discovery.data else { return }
        let bytes = discovery.encoded(dataBytes: SNMPv3Message.scopedPDUBytes(contextEngineID: [], contextName: [], pdu: scoped.pdu,
                                                                              varBindBytes: []), authenticationLength: 0).bytes
        #expect(agent.answer(bytes) == nil)
        #expect(agent.statistics.badVersions == 1)
    }

    @Test func discoveryAnswersAReportWithTheEngine() throws {
        let (agent, _) = try Self.agent()
        let discovery = SNMPv3Message(messageID: 1, maxSize: 65_507, flags: [.reportable], engineID: [], boots: 0, time: 0, userName: [],
                                      data: .encrypted([]))
        let pdu = PDU(type: BERTag.getRequest, requestID: 42, varBinds: [])
        let bytes = discovery.encoded(dataBytes: SNMPv3Message.scopedPDUBytes(contextEngineID: [], contextName: [], pdu: pdu, varBindBytes: []),
                                      authenticationLength: 0).bytes
        let reply = try #require(agent.answer(bytes))
        #expect(reply.count < 2 * bytes.count, "a discovery report of \(reply.count) bytes to \(bytes.count)")
        let report = try SNMPv3Message(decoding: reply)
        #expect(report.engineID == Self.engineID && report.boots == 3 && report.time == 100)
        guard case .plain(let scoped) = report.data else { Issue.record("an encrypted report"); return }
        #expect(scoped.pdu.type == BERTag.report && scoped.pdu.requestID == 42)
        #expect(scoped.pdu.varBinds == [VarBind(USM.unknownEngineIDs, .counter32(1))])
        #expect(bytes.count * 8 >= report.encoded(dataBytes: [], authenticationLength: 0).bytes.count, "within the amplification bound")
    }
}

/// net-snmp's tools with SNMPv3 against a `DatagramServer<SNMPAgent>` on 127.0.0.1 port 0.
@Suite(.ownThreads, .timeLimit(.minutes(3)),
       .enabled(if: ["snmpget", "snmpbulkwalk"].allSatisfy { ChildProcess.executable(named: $0) != nil },
                "net-snmp's snmpget and snmpbulkwalk are not installed: skipped"))
struct NetSNMPVersion3Tests {
    /// Serves `agent` on a loopback port and runs `body` with the port and a fresh net-snmp home
    /// directory (removed after), so net-snmp keeps no state between tests.
    private static func serving(_ agent: SNMPAgent, _ body: (_ port: Int, _ home: String) async throws -> Void) async throws {
        let server = DatagramServer(configuration: .init(host: "127.0.0.1", port: 0), protocol: agent, logger: .disabled)
        let task = Task { try await server.run() }
        defer { task.cancel() }
        let port = try await server.waitUntilListening().port
        let home = FileManager.default.temporaryDirectory.appendingPathComponent("snmp-home-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: home, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: home) }
        try await body(port, home)
    }

    private static func run(_ tool: String, _ arguments: [String], port: Int, home: String, _ trailing: String...) async throws
        -> (status: Int32, output: String, error: String) {
        let path = try #require(ChildProcess.executable(named: tool))
        let child = try ChildProcess(path, ["-m", "", "-On", "-t", "5", "-r", "1", "-v", "3"] + arguments + ["127.0.0.1:\(port)"] + trailing,
                                     environment: ["HOME": home, "SNMP_PERSISTENT_DIR": home, "SNMPCONFPATH": home])
        let status = await child.exitStatus(limit: .seconds(60))
        return (status, child.standardOutput, child.standardError)
    }

    @Test func netSNMPReadsEveryObjectWithAuthPrivAndIsRefusedOtherwise() async throws {
        let start = ContinuousClock.now
        let (agent, view) = try SNMPv3Tests.agent(time: {
            Int32(clamping: (ContinuousClock.now - start).components.seconds + 100)
        })
        try await Self.serving(agent) { port, home in
            let reader = ["-l", "authPriv", "-u", "reader", "-a", "SHA-256", "-A", "auth-pass-123", "-x", "AES", "-X", "priv-pass-456"]

            let get = try await Self.run("snmpget", reader, port: port, home: home, "1.3.6.1.2.1.1.1.0")
            #expect(get.status == 0, "\(get.error)")
            #expect(get.output.contains(".1.3.6.1.2.1.1.1.0 = STRING: \"wpexporter UPS agent\""), "\(get.output)")

            let walk = try await Self.run("snmpbulkwalk", reader + ["-Cr32"], port: port, home: home, "1.3.6.1")
            #expect(walk.status == 0, "\(walk.error)")
            #expect(NetSNMPClientTests.oids(walk.output) == view.instances.map(\.oid))

            let signer = try await Self.run("snmpget", ["-l", "authNoPriv", "-u", "signer", "-a", "SHA-256", "-A", "sign-pass-789"],
                                            port: port, home: home, "1.3.6.1.2.1.1.1.0")
            #expect(signer.status == 0, "\(signer.error)")

            let wrongPassword = try await Self.run("snmpget", ["-l", "authPriv", "-u", "reader", "-a", "SHA-256", "-A", "not-the-password",
                                                               "-x", "AES", "-X", "priv-pass-456"], port: port, home: home, "1.3.6.1.2.1.1.1.0")
            #expect(wrongPassword.status != 0 && wrongPassword.error.contains("Authentication failure"), "\(wrongPassword.error)")

            let noAuth = try await Self.run("snmpget", ["-l", "noAuthNoPriv", "-u", "reader"], port: port, home: home, "1.3.6.1.2.1.1.1.0")
            #expect(noAuth.status != 0 && noAuth.error.contains("Unsupported security level"), "\(noAuth.error)")

            let stranger = try await Self.run("snmpget", ["-l", "noAuthNoPriv", "-u", "stranger"], port: port, home: home, "1.3.6.1.2.1.1.1.0")
            #expect(stranger.status != 0 && stranger.error.contains("Unknown user name"), "\(stranger.error)")
        }
    }

    /// A user of each authentication protocol, authPriv with AES: net-snmp derives and
    /// localizes its own keys from the passwords, so each read checks our keys and MACs against
    /// net-snmp's. A user read with another protocol (another MAC length) or a wrong password
    /// fails with "Authentication failure", not a timeout.
    @Test func netSNMPReadsThroughEveryAuthenticationProtocol() async throws {
        let engineID = SNMPEngine.engineID(random: [8, 7, 6, 5, 4, 3, 2, 1])
        let start = ContinuousClock.now
        let engine = SNMPEngine(engineID: engineID, boots: 1, time: { Int32(clamping: (ContinuousClock.now - start).components.seconds) })
        let users = try USMAuthenticationProtocol.allCases.map { authentication in
            try USMUser(name: "user-\(authentication)", authenticationProtocol: authentication, authenticationPassword: "auth-\(authentication)",
                        privacyPassword: "priv-\(authentication)", engineID: engineID)
        }
        let view = fullView()
        let agent = SNMPAgent(configuration: .init(communities: [], engine: engine, users: users)) { view }
        try await Self.serving(agent) { port, home in
            func arguments(_ authentication: USMAuthenticationProtocol, as spoken: String? = nil, password: String? = nil) -> [String] {
                ["-l", "authPriv", "-u", "user-\(authentication)", "-a", spoken ?? "\(authentication)", "-A", password ?? "auth-\(authentication)",
                 "-x", "AES", "-X", "priv-\(authentication)"]
            }
            for authentication in USMAuthenticationProtocol.allCases {
                let get = try await Self.run("snmpget", arguments(authentication), port: port, home: home, "1.3.6.1.2.1.1.1.0")
                #expect(get.status == 0, "-a \(authentication): \(get.error)")
                #expect(get.output.contains(".1.3.6.1.2.1.1.1.0 = STRING: \"wpexporter UPS agent\""), "-a \(authentication): \(get.output)")
            }
            #expect(agent.statistics.answered == USMAuthenticationProtocol.allCases.count)
            #expect(agent.securityStatistics.wrongDigests == 0)

            let otherProtocol = try await Self.run("snmpget", arguments(.sha512, as: "SHA-256"), port: port, home: home, "1.3.6.1.2.1.1.1.0")
            #expect(otherProtocol.status != 0 && otherProtocol.error.contains("Authentication failure"), "\(otherProtocol.error)")
            let wrongPassword = try await Self.run("snmpget", arguments(.sha1, password: "not-the-password"), port: port, home: home,
                                                   "1.3.6.1.2.1.1.1.0")
            #expect(wrongPassword.status != 0 && wrongPassword.error.contains("Authentication failure"), "\(wrongPassword.error)")
            #expect(agent.securityStatistics.wrongDigests >= 2)
        }
    }
}
