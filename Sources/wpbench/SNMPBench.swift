import Foundation
import WPSNMP

/// Benchmark scenarios for the SNMP agent: walks of a view through `SNMPAgent.answer`, each
/// request encoded, answered and its answer decoded, as a manager would.
enum SNMPBench {
    static let scenarios: [Scenario] = [(1_000, true), (1_000, false), (100_000, true), (100_000, false)].map { instances, bulk in
        Scenario(name: "snmp-\(bulk ? "getbulk" : "getnext")-walk-\(instances)",
                 summary: "a \(bulk ? "GetBulk (max-repetitions 64)" : "GetNext") walk of \(instances) instances through the agent") {
            walk(instances: instances, bulk: bulk, walks: instances > 10_000 ? 5 : 200)
        }
    } + [version3]

    /// A GetBulk walk of 1,000 instances in SNMPv3 at `authPriv` (HMAC-192-SHA-256 and
    /// AES-128-CFB each way): what the user-based security model adds per request.
    static let version3 = Scenario(name: "snmp-v3-authpriv-getbulk-walk-1000",
                                   summary: "a GetBulk walk of 1,000 instances in SNMPv3 authPriv (SHA-256, AES-128) through the agent") {
        walkVersion3(instances: 1_000, walks: 200)
    }

    /// The system group and `instances` scalars under `1.3.6.1.4.1.99999.1`.
    static func view(instances: Int) -> MIBTable {
        var builder = MIBBuilder()
        SystemGroup(description: "wpbench").add(to: &builder)
        let base: OID = "1.3.6.1.4.1.99999.1"
        for index in 1...instances { builder.scalar(base.appending(UInt32(index)), .integer(Int32(index))) }
        return builder.build()
    }

    /// `walks` walks of the bench subtree, each request made by `ask` (the request number and
    /// the cursor → the answer's bindings, `nil` on failure); prints the figures.
    static func measure(instances: Int, walks: Int, ask: (Int, OID) -> [VarBind]?) {
        let clock = ContinuousClock()
        var samples: [Duration] = []
        var requests = 0
        var walked = 0
        for _ in 0..<walks {
            var cursor: OID = "1.3.6.1.4.1.99999"
            let began = clock.now
            walk: while true {
                requests += 1
                guard let bindings = ask(requests, cursor) else { break walk }
                for binding in bindings {
                    if binding.value == .endOfMibView { break walk }
                    cursor = binding.oid
                    walked += 1
                }
            }
            samples.append(began.duration(to: clock.now))
        }
        report(samples, instances: instances, walks: walks, requests: requests, walked: walked)
    }

    static func walkVersion3(instances: Int, walks: Int) {
        let view = view(instances: instances)
        let engineID = SNMPEngine.engineID(random: [1, 2, 3, 4, 5, 6, 7, 8])
        let engine = SNMPEngine(engineID: engineID, boots: 1, time: { 10 })
        guard let user = try? USMUser(name: "bench", authenticationPassword: "bench-auth-1", privacyPassword: "bench-priv-1",
                                      engineID: engineID) else {
            print("   skipped: libcrypto (OpenSSL 3 or 1.1) is not available")
            return
        }
        let agent = SNMPAgent(configuration: .init(communities: [], engine: engine, users: [user])) { view }
        // The manager's side: seals requests and opens answers with the same keys.
        let manager = USM(engine: engine, users: [user], saltSeed: 1)
        measure(instances: instances, walks: walks) { request, cursor in
            let id = Int32(request & 0x7FFF_FFFF)
            let template = SNMPv3Message(messageID: id, maxSize: 65_507, flags: [.authenticated, .encrypted],
                                         engineID: engineID, boots: 1, time: 10, userName: Array("bench".utf8), data: .encrypted([]))
            let scoped = SNMPv3Message.ScopedPDU(contextEngineID: engineID, contextName: [], pdu: PDU(type: BERTag.getBulkRequest, requestID: 1, varBinds: []))
            let bulk = PDU(type: BERTag.getBulkRequest, requestID: id, field1: 0, field2: 64, varBinds: [])
            guard let sealed = manager.response(to: template, scoped: scoped, user: user, pdu: bulk,
                                                varBindBytes: BERWriter.varBind(VarBind(cursor))),
                  let reply = agent.answer(sealed), let message = try? SNMPv3Message(decoding: reply),
                  case .request(_, let answer, _) = manager.process(message, bytes: reply) else { return nil }
            return answer.pdu.varBinds
        }
    }

    static func walk(instances: Int, bulk: Bool, walks: Int) {
        let view = view(instances: instances)
        let agent = SNMPAgent(configuration: .init(communities: ["public"])) { view }
        measure(instances: instances, walks: walks) { request, cursor in
            let message = SNMPMessage(version: .v2c, community: Array("public".utf8),
                                      pdu: PDU(type: bulk ? BERTag.getBulkRequest : BERTag.getNextRequest, requestID: Int32(request & 0x7FFF_FFFF),
                                               field1: 0, field2: bulk ? 64 : 0, varBinds: [VarBind(cursor)]))
            guard let reply = agent.answer(message.encoded()), let answer = try? SNMPMessage(decoding: reply) else { return nil }
            return answer.pdu.varBinds
        }
    }

    private static func report(_ unsorted: [Duration], instances: Int, walks: Int, requests: Int, walked: Int) {
        let samples = unsorted.sorted()
        guard !samples.isEmpty else { return }
        let median = samples[samples.count / 2]
        let p99 = samples[min(samples.count - 1, samples.count * 99 / 100)]
        print("   instances: \(instances), walks: \(walks), requests per walk: \(requests / walks), instances per walk: \(walked / walks)")
        print(String(format: "   walk: median %.2f ms, p99 %.2f ms; %.1f µs per request", milliseconds(median), milliseconds(p99),
                     milliseconds(median) * 1000 / Double(requests / walks)))
    }

    private static func milliseconds(_ duration: Duration) -> Double {
        let (seconds, attoseconds) = duration.components
        return Double(seconds) * 1000 + Double(attoseconds) / 1e15
    }
}
