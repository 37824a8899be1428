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
    }

    static func walk(instances: Int, bulk: Bool, walks: Int) {
        var builder = MIBBuilder()
        SystemGroup(description: "wpbench").add(to: &builder)
        let base: OID = "1.3.6.1.4.1.99999.1"
        for index in 1...instances { builder.scalar(base.appending(UInt32(index)), .integer(Int32(index))) }
        let view = builder.build()
        let agent = SNMPAgent(configuration: .init(communities: ["public"])) { view }
        let clock = ContinuousClock()
        var samples: [Duration] = []
        var requests = 0
        var walked = 0
        for _ in 0..<walks {
            var cursor: OID = "1.3.6.1.4.1.99999"
            let began = clock.now
            walk: while true {
                requests += 1
                let request = SNMPMessage(version: .v2c, community: Array("public".utf8),
                                          pdu: PDU(type: bulk ? BERTag.getBulkRequest : BERTag.getNextRequest, requestID: Int32(requests & 0x7FFF_FFFF),
                                                   field1: 0, field2: bulk ? 64 : 0, varBinds: [VarBind(cursor)]))
                guard let reply = agent.answer(request.encoded()), let answer = try? SNMPMessage(decoding: reply) else { break walk }
                for binding in answer.pdu.varBinds {
                    if binding.value == .endOfMibView { break walk }
                    cursor = binding.oid
                    walked += 1
                }
            }
            samples.append(began.duration(to: clock.now))
        }
        samples.sort()
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
