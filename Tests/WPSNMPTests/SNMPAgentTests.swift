import Testing
import WPTestThreads
@testable import WPSNMP

/// A view of `count` instances `1.3.6.1.4.1.99999.1.n.0` = INTEGER n, after the system group.
func numberedView(_ count: Int, extra: [VarBind] = []) -> MIBTable {
    var builder = MIBBuilder()
    SystemGroup(description: "numbered").add(to: &builder)
    for index in 1...max(1, count) { builder.scalar(OID("1.3.6.1.4.1.99999.1").appending(UInt32(index)), .integer(Int32(index))) }
    for binding in extra { builder.add(binding.oid, index: [], binding.value) }
    return builder.build()
}

func request(_ type: UInt8, _ oids: [OID], version: SNMPVersion = .v2c, community: String = "public", field1: Int32 = 0,
             field2: Int32 = 0, values: [SNMPValue]? = nil) -> [UInt8] {
    let bindings = oids.enumerated().map { VarBind($0.element, values?[$0.offset] ?? .null) }
    return SNMPMessage(version: version, community: Array(community.utf8),
                       pdu: PDU(type: type, requestID: 4711, field1: field1, field2: field2, varBinds: bindings)).encoded()
}

func agent(_ view: MIBTable = fullView(), _ configuration: SNMPAgent.Configuration = .init(communities: ["public", "ro2"])) -> SNMPAgent {
    SNMPAgent(configuration: configuration) { view }
}

/// The agent's answer, decoded; records an issue when there is none.
func answer(_ agent: SNMPAgent, _ bytes: [UInt8], sourceLocation: SourceLocation = #_sourceLocation) throws -> SNMPMessage {
    let reply = try #require(agent.answer(bytes), sourceLocation: sourceLocation)
    #expect(reply.count <= agent.configuration.responseLimit(forRequestOf: bytes.count), sourceLocation: sourceLocation)
    return try SNMPMessage(decoding: reply)
}

@Suite(.ownThreads, .timeLimit(.minutes(2))) struct SNMPAgentTests {
    @Test func getAnswersTheNetSNMPRequest() throws {
        let reply = try answer(agent(), sysDescrRequest)
        #expect(reply.version == .v2c && reply.community == Array("public".utf8))
        #expect(reply.pdu == .response(requestID: 0x0C14_F54B, varBinds: [VarBind("1.3.6.1.2.1.1.1.0", .string("wpexporter UPS agent"))]))
    }

    @Test func getAnswersExceptionsInV2cAndNoSuchNameInV1() throws {
        let oids: [OID] = ["1.3.6.1.2.1.1.5.0", "1.3.6.1.2.1.1.9.0", "1.3.6.1.2.1.1.5.1"]
        let v2 = try answer(agent(), request(BERTag.getRequest, oids))
        #expect(v2.pdu.varBinds.map(\.value) == [.string("gw"), .noSuchObject, .noSuchInstance])
        #expect(v2.pdu.field1 == 0)
        let v1 = try answer(agent(), request(BERTag.getRequest, oids, version: .v1))
        #expect(v1.version == .v1)
        #expect(v1.pdu == .response(requestID: 4711, error: .noSuchName, index: 2, varBinds: oids.map { VarBind($0) }))
    }

    @Test func getNextWalksEveryInstanceInOrderThenEndOfMibView() throws {
        let view = fullView()
        let served = agent(view)
        var walked: [VarBind] = []
        var cursor: OID = "1.3.6.1"
        while true {
            let binding = try #require(try answer(served, request(BERTag.getNextRequest, [cursor])).pdu.varBinds.first)
            if binding.value == .endOfMibView {
                #expect(binding.oid == cursor)
                break
            }
            walked.append(binding)
            cursor = binding.oid
        }
        #expect(walked == view.instances)
        let v1 = try answer(served, request(BERTag.getNextRequest, ["1.3.6.1.2.1.1", cursor], version: .v1))
        #expect(v1.pdu.field1 == SNMPErrorStatus.noSuchName.rawValue && v1.pdu.field2 == 2)
    }

    @Test func v1NeverSeesCounter64() throws {
        let view = numberedView(2, extra: [VarBind("1.3.6.1.4.1.99999.1.1.5", .counter64(9))])
        let next = try answer(agent(view), request(BERTag.getNextRequest, ["1.3.6.1.4.1.99999.1.1.0"], version: .v1))
        #expect(next.pdu.varBinds == [VarBind("1.3.6.1.4.1.99999.1.2.0", .integer(2))])
        let get = try answer(agent(view), request(BERTag.getRequest, ["1.3.6.1.4.1.99999.1.1.5"], version: .v1))
        #expect(get.pdu.field1 == SNMPErrorStatus.noSuchName.rawValue && get.pdu.field2 == 1)
        let v2 = try answer(agent(view), request(BERTag.getNextRequest, ["1.3.6.1.4.1.99999.1.1.0"]))
        #expect(v2.pdu.varBinds == [VarBind("1.3.6.1.4.1.99999.1.1.5", .counter64(9))])
    }

    @Test func getBulkServesNonRepeatersThenInterleavedRepetitions() throws {
        let reply = try answer(agent(numberedView(10)), request(BERTag.getBulkRequest,
                                                               ["1.3.6.1.2.1.1.4.0", "1.3.6.1.4.1.99999.1.2", "1.3.6.1.4.1.99999.1.5"],
                                                               field1: 1, field2: 3))
        let base: OID = "1.3.6.1.4.1.99999.1"
        #expect(reply.pdu.varBinds.map(\.oid) == ["1.3.6.1.2.1.1.5.0",
                                                  base.appending(2, 0), base.appending(5, 0),
                                                  base.appending(3, 0), base.appending(6, 0),
                                                  base.appending(4, 0), base.appending(7, 0)])
        #expect(reply.pdu.field1 == 0 && reply.pdu.field2 == 0)
    }

    @Test func getBulkStopsOnceEveryRepeaterEnded() throws {
        let reply = try answer(agent(numberedView(3)), request(BERTag.getBulkRequest, ["1.3.6.1.4.1.99999.1.2.0", "1.3.6.1.4.1.99999.1.3.0"],
                                                              field2: 50))
        #expect(reply.pdu.varBinds == [VarBind("1.3.6.1.4.1.99999.1.3.0", .integer(3)), VarBind("1.3.6.1.4.1.99999.1.3.0", .endOfMibView),
                                       VarBind("1.3.6.1.4.1.99999.1.3.0", .endOfMibView), VarBind("1.3.6.1.4.1.99999.1.3.0", .endOfMibView)])
    }

    @Test func getBulkRepetitionsAreCapped() throws {
        let roomy = SNMPAgent.Configuration(communities: ["public"], maxMessageSize: 65_000, minimumResponseLimit: 65_000)
        let reply = try answer(agent(numberedView(1000), roomy), request(BERTag.getBulkRequest, ["1.3.6.1.4.1.99999"], field2: 10_000))
        #expect(reply.pdu.varBinds.count == 64)
        let negative = try answer(agent(numberedView(10), roomy), request(BERTag.getBulkRequest, ["1.3.6.1.4.1.99999", "1.3"],
                                                                          field1: -3, field2: -1))
        #expect(negative.pdu.varBinds.isEmpty && negative.pdu.field1 == 0)
    }

    @Test func getBulkIsCutToTheResponseLimitWithoutAnError() throws {
        let view = numberedView(1000)
        let bytes = request(BERTag.getBulkRequest, ["1.3.6.1.4.1.99999"], field2: 64)
        let reply = try answer(agent(view), bytes)
        let sent = try #require(agent(view).answer(bytes)).count
        #expect(sent <= 484 && sent > 484 - 30)  // 8 × a 36-byte request is under the 484-byte floor
        #expect(reply.pdu.field1 == 0)
        #expect(reply.pdu.varBinds.count > 10 && reply.pdu.varBinds.count < 64)
        #expect(reply.pdu.varBinds == Array(view.instances.drop { $0.oid < "1.3.6.1.4.1.99999" }.prefix(reply.pdu.varBinds.count)))
        // A larger request may get a larger answer, up to the 1,472-byte message size.
        let padded = request(BERTag.getBulkRequest, ["1.3.6.1.4.1.99999"] + [OID](repeating: "1.3.6.1.2.1.1.1.0", count: 10),
                             field1: 0, field2: 64)
        let big = try #require(agent(view).answer(padded))
        #expect(big.count > 484 && big.count <= 1472)
    }

    @Test func getBulkThatCannotHoldOneBindingIsTooBig() throws {
        let view = numberedView(1, extra: [VarBind("1.3.6.1.4.1.99999.2.0", .octetString([UInt8](repeating: 0x41, count: 2000)))])
        let reply = try answer(agent(view), request(BERTag.getBulkRequest, ["1.3.6.1.4.1.99999.1.1.0"], field2: 5))
        #expect(reply.pdu == .response(requestID: 4711, error: .tooBig, varBinds: []))
    }

    @Test func getTooLargeForTheLimitIsTooBig() throws {
        let view = numberedView(1, extra: [VarBind("1.3.6.1.4.1.99999.2.0", .octetString([UInt8](repeating: 0x41, count: 600)))])
        let served = agent(view)
        let v2 = try answer(served, request(BERTag.getRequest, ["1.3.6.1.4.1.99999.2.0"]))
        #expect(v2.pdu == .response(requestID: 4711, error: .tooBig, varBinds: []))
        let v1 = try answer(served, request(BERTag.getNextRequest, ["1.3.6.1.4.1.99999.1.1.0"], version: .v1))
        #expect(v1.pdu == .response(requestID: 4711, error: .tooBig, varBinds: [VarBind("1.3.6.1.4.1.99999.1.1.0")]))
        #expect(served.statistics.tooBig == 2 && served.statistics.answered == 2)
    }

    @Test func setIsRefusedWithTheErrorOfEachVersion() throws {
        let served = agent()
        let oids: [OID] = ["1.3.6.1.2.1.1.5.0", "1.3.6.1.2.1.1.6.0"]
        let values: [SNMPValue] = [.string("new"), .string("elsewhere")]
        let v2 = try answer(served, request(BERTag.setRequest, oids, values: values))
        #expect(v2.pdu == .response(requestID: 4711, error: .noAccess, index: 1, varBinds: zip(oids, values).map { VarBind($0, $1) }))
        let v1 = try answer(served, request(BERTag.setRequest, oids, version: .v1, values: values))
        #expect(v1.pdu.field1 == SNMPErrorStatus.noSuchName.rawValue && v1.pdu.field2 == 1)
        #expect(served.statistics.setsRefused == 2)
        #expect(try answer(served, sysDescrRequest).pdu.varBinds.first?.value == .string("wpexporter UPS agent"))
    }

    @Test func wrongCommunitiesAndOtherMessagesAreDroppedAndCounted() {
        let served = agent()
        #expect(served.answer(request(BERTag.getRequest, ["1.3.6.1.2.1.1.1.0"], community: "private")) == nil)
        #expect(served.answer(request(BERTag.getRequest, ["1.3.6.1.2.1.1.1.0"], community: "Public")) == nil)
        #expect(served.answer(request(BERTag.response, ["1.3.6.1.2.1.1.1.0"])) == nil)
        #expect(served.answer(request(BERTag.snmpV2Trap, ["1.3.6.1.2.1.1.3.0"])) == nil)
        #expect(served.answer(Array(sysDescrRequest.dropLast())) == nil)
        var v3 = sysDescrRequest
        v3[4] = 3
        #expect(served.answer(v3) == nil)
        #expect(served.answer(request(BERTag.getRequest, ["1.3.6.1.2.1.1.1.0"], community: "ro2")) != nil)
        var expected = SNMPAgentStatistics()
        expected.received = 7
        expected.badCommunities = 2
        expected.notRequests = 2
        expected.malformed = 1
        expected.badVersions = 1
        expected.answered = 1
        #expect(served.statistics == expected)
    }

    @Test func noAnswerExceedsTheAmplificationBound() throws {
        let configuration = SNMPAgent.Configuration(communities: ["public"])
        #expect(configuration.responseLimit(forRequestOf: 40) == 484)
        #expect(configuration.responseLimit(forRequestOf: 100) == 800)
        #expect(configuration.responseLimit(forRequestOf: 1000) == 1472)
        #expect(configuration.responseLimit(forRequestOf: Int.max) == 1472)
        let view = fullView()
        let served = agent(view)
        let all = view.instances.map(\.oid)
        var requests: [[UInt8]] = []
        for type in [BERTag.getRequest, BERTag.getNextRequest, BERTag.getBulkRequest, BERTag.setRequest] {
            for count in [1, 5, 20, all.count] {
                requests.append(request(type, Array(all.prefix(count)), field2: 64))
                requests.append(request(type, Array(all.prefix(count)), version: .v1))
            }
        }
        for bytes in requests {
            if let reply = served.answer(bytes) {
                #expect(reply.count <= max(8 * bytes.count, 484) && reply.count <= 1472)
            }
        }
        // A request whose own refusal would exceed the limit is dropped.
        let huge = request(BERTag.setRequest, ["1.3.6.1.2.1.1.5.0"], values: [.octetString([UInt8](repeating: 0x41, count: 1500))])
        #expect(served.answer(huge) == nil)
        #expect(served.statistics.silentDrops >= 1)
    }

    @Test func bulkWalkOfAThousandInstancesVisitsEachOnce() throws {
        let view = numberedView(1000)
        let served = agent(view)
        let clock = ContinuousClock()
        var cursor: OID = "1.3.6.1.4.1.99999"
        var walked = 0
        var requests = 0
        let elapsed = try clock.measure {
            walk: while true {
                requests += 1
                let reply = try answer(served, request(BERTag.getBulkRequest, [cursor], field2: 64))
                for binding in reply.pdu.varBinds {
                    if binding.value == .endOfMibView { break walk }
                    walked += 1
                    cursor = binding.oid
                }
            }
        }
        #expect(walked == 1000)
        print("GetBulk walk of 1,000 instances: \(requests) requests in \(elapsed)")
    }
}
