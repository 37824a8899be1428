import Testing
import WPTestThreads
import WPTestSupport
@testable import WPSNMP

@Suite(.ownThreads, .timeLimit(.minutes(3))) struct BERPropertyTests {
    @Test func randomOIDsAndValuesRoundTrip() throws {
        var random = SplitMix64(seed: 41)
        for _ in 0..<2_000 {
            let count = Int.random(in: 2...OID.maxComponents, using: &random)
            var components = [UInt32.random(in: 0...2, using: &random)]
            // The second arc is below 40 under 0 and 1; under 2 it shares the first sub-identifier's 32 bits.
            components.append(components[0] < 2 ? UInt32.random(in: 0...39, using: &random) : UInt32.random(in: 0...UInt32.max - 80, using: &random))
            for _ in 2..<count {
                switch Int.random(in: 0..<3, using: &random) {  // small, the largest, any
                case 0: components.append(UInt32.random(in: 0...200, using: &random))
                case 1: components.append(UInt32.max)
                default: components.append(UInt32.random(in: 0...UInt32.max, using: &random))
                }
            }
            let oid = OID(components)
            let value: SNMPValue = switch Int.random(in: 0..<6, using: &random) {
            case 0: .integer(Int32.random(in: Int32.min...Int32.max, using: &random))
            case 1: .counter32(UInt32.random(in: 0...UInt32.max, using: &random))
            case 2: .counter64(random.next())
            case 3: .timeTicks(UInt32.random(in: 0...UInt32.max, using: &random))
            case 4: .octetString((0..<Int.random(in: 0...300, using: &random)).map { _ in UInt8.random(in: 0...255, using: &random) })
            default: .objectIdentifier(oid)
            }
            let message = SNMPMessage(version: .v2c, community: Array("public".utf8),
                                      pdu: .response(requestID: Int32.random(in: Int32.min...Int32.max, using: &random), varBinds: [VarBind(oid, value)]))
            #expect(try SNMPMessage(decoding: message.encoded()) == message)
            #expect(OID(parsing: oid.description) == oid)
        }
    }

    /// Random corruptions of valid requests: the agent answers or drops each, never crashes,
    /// and never answers beyond the size bound.
    @Test func corruptedRequestsAreAnsweredWithinBoundsOrDropped() throws {
        var random = SplitMix64(seed: 1628)
        let served = agent()
        let seeds = [sysDescrRequest,
                     request(BERTag.getBulkRequest, ["1.3.6.1.2.1.1", "1.3.6.1.2.1.33.1.3"], field1: 1, field2: 30),
                     request(BERTag.getNextRequest, ["1.3.6.1"], version: .v1),
                     request(BERTag.setRequest, ["1.3.6.1.2.1.1.5.0"], values: [.string("x")])]
        var answered = 0
        for round in 0..<20_000 {
            var bytes = seeds[round % seeds.count]
            for _ in 0..<Int.random(in: 1...4, using: &random) {
                let at = Int.random(in: 0..<bytes.count, using: &random)
                switch Int.random(in: 0..<3, using: &random) {
                case 0: bytes[at] = UInt8.random(in: 0...255, using: &random)
                case 1: bytes.remove(at: at)
                default: bytes.insert(UInt8.random(in: 0...255, using: &random), at: at)
                }
                if bytes.isEmpty { break }
            }
            if let reply = served.answer(bytes) {
                answered += 1
                #expect(reply.count <= served.configuration.responseLimit(forRequestOf: bytes.count))
                let response = try SNMPMessage(decoding: reply)
                #expect(response.pdu.type == BERTag.response)
            }
        }
        let statistics = served.statistics
        #expect(answered > 0 && statistics.malformed > 0)
        #expect(statistics.received == 20_000)
        #expect(statistics.answered == answered)
    }
}
