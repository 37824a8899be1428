import Testing
@testable import WPMQTT
import WPTestThreads

/// MQTT 3.1.1's packets as the standard lays them out (OASIS MQTT 3.1.1, section 3), and a
/// broker's bytes read whole, in pieces, and refused when malformed.
@Suite(.ownThreads, .timeLimit(.minutes(2))) struct MQTTPacketTests {
    @Test func connectCarriesEveryFlagAndFieldInTheStandardsOrder() {
        let will = MQTTPacket.Message(topic: "wp/status", payload: Array("offline".utf8), qos: 1, retain: true)
        let connect = MQTTPacket.connect(.init(clientID: "wpx", keepAlive: 30, will: will, username: "u", password: Array("pw".utf8)))
        let expected: [UInt8] = [
            0x10, 42,                                  // CONNECT, remaining length
            0x00, 0x04, 0x4D, 0x51, 0x54, 0x54, 0x04,  // "MQTT", level 4
            0xEE,                                      // user, password, will retain, will QoS 1, will, clean session
            0x00, 0x1E,                                // keep-alive 30 s
            0x00, 0x03, 0x77, 0x70, 0x78,              // client id
            0x00, 0x09] + Array("wp/status".utf8) + [0x00, 0x07] + Array("offline".utf8)
            + [0x00, 0x01, 0x75, 0x00, 0x02, 0x70, 0x77]
        #expect(connect.encoded == expected)
        // Without will or credentials: only clean session.
        #expect(MQTTPacket.connect(.init(clientID: "", keepAlive: 0)).encoded == [0x10, 12, 0, 4, 0x4D, 0x51, 0x54, 0x54, 4, 0x02, 0, 0, 0, 0])
    }

    @Test func publishSubscribeAndTheSmallPacketsEncodeAsTheStandardSays() {
        let message = MQTTPacket.Message(topic: "a/b", payload: [1, 2], qos: 1, retain: true)
        #expect(MQTTPacket.publish(message, packetID: 10, duplicate: true).encoded == [0x3B, 9, 0, 3, 0x61, 0x2F, 0x62, 0, 10, 1, 2])
        #expect(MQTTPacket.publish(.init(topic: "t", payload: []), packetID: nil, duplicate: false).encoded == [0x30, 3, 0, 1, 0x74])
        #expect(MQTTPacket.subscribe(packetID: 0xFFFF, topics: [("h/status", 0)]).encoded
                == [0x82, 13, 0xFF, 0xFF, 0, 8] + Array("h/status".utf8) + [0])
        #expect(MQTTPacket.pingreq.encoded == [0xC0, 0])
        #expect(MQTTPacket.disconnect.encoded == [0xE0, 0])
        #expect(MQTTPacket.puback(packetID: 0x0102).encoded == [0x40, 2, 1, 2])
    }

    @Test func remainingLengthsTakeOneToFourBytes() throws {
        let cases: [(Int, [UInt8])] = [(0, [0]), (127, [0x7F]), (128, [0x80, 0x01]), (16_383, [0xFF, 0x7F]),
                                       (16_384, [0x80, 0x80, 0x01]), (2_097_151, [0xFF, 0xFF, 0x7F]),
                                       (2_097_152, [0x80, 0x80, 0x80, 0x01]), (268_435_455, [0xFF, 0xFF, 0xFF, 0x7F])]
        for (length, bytes) in cases { #expect(MQTTPacket.remainingLength(length) == bytes, "\(length)") }
        // A big one read back whole.
        let big = MQTTPacket.publish(.init(topic: "t", payload: [UInt8](repeating: 9, count: 20_000)), packetID: nil, duplicate: false)
        #expect(try MQTTPacket.decode(big.encoded[...])?.0 == big)
    }

    @Test func aBrokersPacketsAreReadWholeOrWaitedFor() throws {
        let stream: [UInt8] = [0x20, 2, 0, 0] + [0x40, 2, 0, 7] + [0xD0, 0] + MQTTPacket.publish(
            .init(topic: "homeassistant/status", payload: Array("online".utf8), qos: 1), packetID: 3, duplicate: false).encoded
        var rest = stream[...]
        var packets: [MQTTPacket] = []
        while let (packet, used) = try MQTTPacket.decode(rest) {
            packets.append(packet)
            rest = rest.dropFirst(used)
        }
        #expect(rest.isEmpty)
        #expect(packets == [.connack(sessionPresent: false, returnCode: 0), .puback(packetID: 7), .pingresp,
                            .publish(.init(topic: "homeassistant/status", payload: Array("online".utf8), qos: 1), packetID: 3, duplicate: false)])
        // Every prefix short of a whole packet waits for more.
        for cut in 0..<4 { #expect(try MQTTPacket.decode(stream.prefix(cut)) == nil) }
        #expect(try MQTTPacket.decode([0x20, 2, 1, 5][...])?.0 == .connack(sessionPresent: true, returnCode: 5))
    }

    @Test func malformedBytesAreRefusedNamingWhatIsWrong() {
        let cases: [([UInt8], String)] = [
            ([0x20, 3, 0, 0, 0], "a CONNACK that is not two bytes"),
            ([0x20, 2, 2, 0], "a CONNACK with reserved flags set"),
            ([0x36, 5, 0, 1, 0x74, 0, 1], "a PUBLISH of QoS 3"),
            ([0x30, 4, 0, 9, 0x74, 0x74], "a string longer than its packet"),
            ([0x30, 4, 0, 2, 0xFF, 0xFE], "a topic that is not UTF-8"),
            ([0x30, 0xFF, 0xFF, 0xFF, 0xFF, 0x01], "a remaining length longer than four bytes"),
            ([0x30, 0x80, 0x80, 0x80, 0x01], "a packet of 2097152 bytes, more than the 1048576 a publishing client takes"),
            ([0x10, 0], "a packet only a client sends (type 1)"),
            ([0x50, 2, 0, 1], "a packet of type 5, which a QoS 0 and 1 publisher does not take"),
            ([0xD0, 1, 0], "a PINGRESP with a body"),
        ]
        for (bytes, reason) in cases {
            #expect(throws: MQTTError.protocolViolation(reason), "\(bytes)") { try MQTTPacket.decode(bytes[...]) }
        }
        #expect(MQTTError.refused(4).description == "the broker refused the connection: bad user name or password")
    }
}
