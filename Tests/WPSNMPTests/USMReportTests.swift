import Testing
import WPTestThreads
@testable import WPSNMP

/// RFC 3414 §3.2's refusals: each reportable request that fails a step gets its Report PDU,
/// naming the step's `usmStats` counter with its value, and no report is larger than twice
/// its request (the requests here are minimal: no context, a 484-byte msgMaxSize).
@Suite(.ownThreads, .timeLimit(.minutes(3))) struct USMReportTests {
    static let engineID = SNMPEngine.engineID(random: [1, 2, 3, 4, 5, 6, 7, 8])

    struct Case: CustomTestStringConvertible, Sendable {
        let name: String
        let oid: OID
        /// The report is authenticated for the user (a time-window report, RFC 3414 §3.2 7b).
        var authenticated = false
        let request: @Sendable (_ users: [String: USMUser]) -> [UInt8]?
        var testDescription: String { name }
    }

    /// `reader`: authPriv with SHA-256; `signer`: authNoPriv with SHA-1 (a 12-byte MAC).
    static func users() throws -> [String: USMUser] {
        let reader = try USMUser(name: "reader", authenticationPassword: "auth-pass-123", privacyPassword: "priv-pass-456",
                                 engineID: engineID)
        let signer = try USMUser(name: "signer", authenticationProtocol: .sha1, authenticationPassword: "sign-pass-789",
                                 privacyPassword: nil, engineID: engineID)
        return ["reader": reader, "signer": signer]
    }

    static let cases: [Case] = [
        Case(name: "discovery (no engine ID)", oid: USM.unknownEngineIDs) { _ in
            USMTestMessages.request(engineID: [], userName: "", level: .noAuthNoPriv, varBinds: [])
        },
        Case(name: "another engine's ID", oid: USM.unknownEngineIDs) { _ in
            USMTestMessages.request(engineID: [0x80, 0, 0, 0, 5, 9, 9, 9, 9], userName: "reader", level: .noAuthNoPriv, varBinds: [])
        },
        Case(name: "an unknown user", oid: USM.unknownUserNames) { _ in
            USMTestMessages.request(engineID: engineID, userName: "stranger", level: .noAuthNoPriv, varBinds: [])
        },
        Case(name: "noAuthNoPriv from an authPriv user", oid: USM.unsupportedSecLevels) { _ in
            USMTestMessages.request(engineID: engineID, userName: "reader", level: .noAuthNoPriv, varBinds: [])
        },
        Case(name: "authNoPriv from an authPriv user", oid: USM.unsupportedSecLevels) { users in
            USMTestMessages.request(engineID: engineID, user: users["reader"], level: .authNoPriv, varBinds: [])
        },
        Case(name: "authPriv from an authNoPriv user", oid: USM.unsupportedSecLevels) { users in
            USMTestMessages.request(engineID: engineID, user: users["signer"], level: .authPriv, cipher: [1, 2, 3], varBinds: [])
        },
        Case(name: "a wrong MAC", oid: USM.wrongDigests) { users in
            USMTestMessages.request(engineID: engineID, user: users["signer"], level: .authNoPriv, corrupt: true, varBinds: [])
        },
        Case(name: "a MAC of another protocol's length (SHA-256's 24 bytes for a SHA-1 user)", oid: USM.wrongDigests) { users in
            USMTestMessages.request(engineID: engineID, user: users["signer"], level: .authNoPriv, macLength: 24, varBinds: [])
        },
        Case(name: "an empty MAC", oid: USM.wrongDigests) { users in
            USMTestMessages.request(engineID: engineID, user: users["signer"], level: .authNoPriv, macLength: 0, varBinds: [])
        },
        Case(name: "outside the time window", oid: USM.notInTimeWindows, authenticated: true) { users in
            USMTestMessages.request(engineID: engineID, time: 100 + USM.timeWindow + 1, user: users["signer"], level: .authNoPriv,
                                    varBinds: [])
        },
        Case(name: "other boots", oid: USM.notInTimeWindows, authenticated: true) { users in
            USMTestMessages.request(engineID: engineID, boots: 2, user: users["signer"], level: .authNoPriv, varBinds: [])
        },
        Case(name: "a PDU that does not decrypt", oid: USM.decryptionErrors) { users in
            USMTestMessages.request(engineID: engineID, user: users["reader"], level: .authPriv, cipher: [0x30, 0x03, 1, 2, 3], varBinds: [])
        },
    ]

    @Test(arguments: cases) func aRefusalIsAnsweredWithItsReportAndCounter(_ refusal: Case) throws {
        let users = try Self.users()
        let engine = SNMPEngine(engineID: Self.engineID, boots: 3, time: { 100 })
        let agent = SNMPAgent(configuration: .init(communities: [], engine: engine, users: Array(users.values))) { fullView() }
        let manager = USM(engine: engine, users: Array(users.values), saltSeed: 1)
        for expected in UInt32(1)...2 {
            let request = try #require(refusal.request(users))
            let reply = try #require(agent.answer(request), "no report")
            #expect(reply.count <= 2 * request.count, "a report of \(reply.count) bytes to a request of \(request.count)")
            let report = try SNMPv3Message(decoding: reply)
            #expect(report.engineID == Self.engineID && report.boots == 3 && report.time == 100)
            #expect(!report.flags.contains(.reportable) && !report.flags.contains(.encrypted))
            let scoped: SNMPv3Message.ScopedPDU
            if refusal.authenticated {
                #expect(report.flags.contains(.authenticated))
                #expect(report.authenticationParameters.count == USMAuthenticationProtocol.sha1.macLength)
                guard case .request(_, let opened, _) = manager.process(report, bytes: reply) else {
                    Issue.record("the time-window report does not authenticate as the user")
                    return
                }
                scoped = opened
            } else {
                #expect(report.flags.isEmpty && report.authenticationParameters.isEmpty)
                guard case .plain(let plain) = report.data else { Issue.record("an encrypted report"); return }
                scoped = plain
            }
            #expect(scoped.pdu.type == BERTag.report)
            #expect(scoped.contextEngineID == Self.engineID)
            #expect(scoped.pdu.varBinds == [VarBind(refusal.oid, .counter32(expected))])
        }
        #expect(agent.statistics.answered == 0)
        let statistics = agent.securityStatistics
        let counted: [OID: Int] = [USM.unknownEngineIDs: statistics.unknownEngineIDs, USM.unknownUserNames: statistics.unknownUserNames,
                                   USM.unsupportedSecLevels: statistics.unsupportedSecurityLevels, USM.wrongDigests: statistics.wrongDigests,
                                   USM.notInTimeWindows: statistics.notInTimeWindows, USM.decryptionErrors: statistics.decryptionErrors]
        #expect(counted.filter { $0.value != 0 } == [refusal.oid: 2], "only \(refusal.oid) counts")
    }

    /// The same refusals without the reportable flag are dropped, and still counted.
    @Test func aRefusalThatIsNotReportableIsDroppedAndCounted() throws {
        let users = try Self.users()
        let engine = SNMPEngine(engineID: Self.engineID, boots: 3, time: { 100 })
        let agent = SNMPAgent(configuration: .init(communities: [], engine: engine, users: Array(users.values))) { fullView() }
        var request = try #require(USMTestMessages.request(engineID: Self.engineID, user: users["signer"], level: .authNoPriv, corrupt: true))
        // msgFlags is covered by the (wrong) MAC anyway: clearing reportable keeps it a wrong digest.
        let flags = try #require(request.firstRange(of: [0x04, 0x01, 0x05]))
        request[flags.upperBound - 1] = 0x01
        #expect(agent.answer(request) == nil)
        #expect(agent.securityStatistics.wrongDigests == 1)
    }
}
