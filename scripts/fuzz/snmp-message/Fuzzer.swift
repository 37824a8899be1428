// libFuzzer target for the SNMP agent's decoding and answering. Built by scripts/fuzz.sh
// snmp-message together with the WPSNMP sources it lists (not part of the package build).
//
// Each input is one datagram. The generic BER walk and the message decoder must throw or
// succeed, never crash; a decoded message must encode back to a message that decodes equal;
// the agent's answer, when there is one, must be a well-formed Response to the request's id
// and no larger than the response limit for the input's size; an SNMPv3 message's answer (a
// report to an unauthenticated one) a well-formed SNMPv3 message with its message id, as
// bounded.

/// WPServer's protocol, declared here: the agent's sources are compiled without WPServer.
protocol DatagramProtocol: Sendable {
    func handle(_ datagram: [UInt8], from peer: String) async -> [UInt8]?
}

private let view: MIBTable = {
    var builder = MIBBuilder()
    SystemGroup(description: "fuzz", name: "gw").add(to: &builder)
    var ups = UPSMIBValues()
    ups.manufacturer = "ACME"
    ups.estimatedChargeRemaining = 80
    ups.inputLines = [.init(frequency: 50, voltage: 230), .init(voltage: 231)]
    ups.outputLines = [.init(voltage: 230, current: 2.5)]
    ups.alarms = [.init(id: 1, alarm: .onBattery)]
    ups.add(to: &builder)
    builder.scalar("1.3.6.1.2.1.99.1", .counter64(1 << 40))
    return builder.build()
}()

private let engineID = SNMPEngine.engineID(random: [1, 2, 3, 4, 5, 6, 7, 8])
private let agent = SNMPAgent(configuration: .init(
    communities: ["public"], engine: SNMPEngine(engineID: engineID, boots: 1, time: { 100 }),
    users: [try! USMUser(name: "reader", authenticationPassword: "auth-pass-123", privacyPassword: "priv-pass-456",
                         engineID: engineID)])) { view }

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzSNMPMessage(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let bytes = Array(UnsafeBufferPointer(start: data, count: data == nil ? 0 : size))
    var reader = BERReader(bytes)
    while !reader.isAtEnd {
        do { try reader.skipElement() } catch { break }
    }
    if let message = try? SNMPv3Message(decoding: bytes) {
        // SNMPv3: a report or a response to the same message id, within the bound.
        if let reply = agent.answer(bytes) {
            guard reply.count <= agent.configuration.responseLimit(forRequestOf: bytes.count),
                  let answer = try? SNMPv3Message(decoding: reply), answer.messageID == message.messageID else {
                fatalError("a malformed or oversized SNMPv3 answer to \(bytes)")
            }
        }
        return 0
    }
    guard let message = try? SNMPMessage(decoding: bytes) else {
        if agent.answer(bytes) != nil { fatalError("an undecodable datagram was answered") }
        return 0
    }
    guard let again = try? SNMPMessage(decoding: message.encoded()), again == message else {
        fatalError("a decoded message does not survive encoding: \(message)")
    }
    if let reply = agent.answer(bytes) {
        guard reply.count <= agent.configuration.responseLimit(forRequestOf: bytes.count) else {
            fatalError("an answer of \(reply.count) bytes to \(bytes.count)")
        }
        guard let response = try? SNMPMessage(decoding: reply), response.pdu.type == BERTag.response,
              response.pdu.requestID == message.pdu.requestID, response.version == message.version else {
            fatalError("a malformed answer to \(message)")
        }
    }
    return 0
}
