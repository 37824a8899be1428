/// The MQTT 3.1.1 control packets a publishing client sends and reads (OASIS MQTT Version
/// 3.1.1, section 3), each encoded as the standard lays it out and decoded from a broker's bytes
/// with every length checked.
package enum MQTTPacket: Sendable, Equatable {
    /// What a client says when it connects: its id, session, keep-alive, will and credentials.
    package struct Connect: Sendable, Equatable {
        package var clientID: String
        package var cleanSession = true
        /// Seconds between two packets the client promises (0: none); the broker closes the
        /// connection after 1.5 times it without one.
        package var keepAlive: UInt16 = 60
        package var will: Message?
        package var username: String?
        package var password: [UInt8]?

        package init(clientID: String, cleanSession: Bool = true, keepAlive: UInt16 = 60, will: Message? = nil,
                     username: String? = nil, password: [UInt8]? = nil) {
            self.clientID = clientID
            self.cleanSession = cleanSession
            self.keepAlive = keepAlive
            self.will = will
            self.username = username
            self.password = password
        }
    }

    /// An application message: topic, payload, QoS and whether the broker keeps it.
    package struct Message: Sendable, Equatable {
        package var topic: String
        package var payload: [UInt8]
        /// 0 (at most once) or 1 (at least once).
        package var qos: UInt8
        package var retain: Bool

        package init(topic: String, payload: [UInt8], qos: UInt8 = 0, retain: Bool = false) {
            self.topic = topic
            self.payload = payload
            self.qos = qos
            self.retain = retain
        }
    }

    case connect(Connect)
    /// The broker's answer to CONNECT: whether it kept a session, and its return code (0
    /// accepted; 1–5 refused, ``MQTTPacket/connackReason(_:)``).
    case connack(sessionPresent: Bool, returnCode: UInt8)
    /// A message; `packetID` with QoS 1 and 2, `duplicate` on a resend.
    case publish(Message, packetID: UInt16?, duplicate: Bool)
    case puback(packetID: UInt16)
    case subscribe(packetID: UInt16, topics: [(filter: String, qos: UInt8)])
    case suback(packetID: UInt16, returnCodes: [UInt8])
    case pingreq
    case pingresp
    case disconnect

    package static func == (lhs: MQTTPacket, rhs: MQTTPacket) -> Bool {
        switch (lhs, rhs) {
        case (.connect(let a), .connect(let b)): a == b
        case (.connack(let a, let b), .connack(let c, let d)): a == c && b == d
        case (.publish(let a, let b, let c), .publish(let d, let e, let f)): a == d && b == e && c == f
        case (.puback(let a), .puback(let b)): a == b
        case (.subscribe(let a, let b), .subscribe(let c, let d)):
            a == c && b.map(\.filter) == d.map(\.filter) && b.map(\.qos) == d.map(\.qos)
        case (.suback(let a, let b), .suback(let c, let d)): a == c && b == d
        case (.pingreq, .pingreq), (.pingresp, .pingresp), (.disconnect, .disconnect): true
        default: false
        }
    }

    /// The largest remaining length the standard allows (four length bytes): 256 MB.
    package static let maxRemainingLength = 268_435_455

    /// Why a CONNECT was refused, as the standard names return codes 1–5.
    package static func connackReason(_ code: UInt8) -> String {
        switch code {
        case 0: "accepted"
        case 1: "the broker does not speak MQTT 3.1.1 (unacceptable protocol version)"
        case 2: "the client identifier was rejected"
        case 3: "the broker is unavailable"
        case 4: "bad user name or password"
        case 5: "not authorized"
        default: "return code \(code)"
        }
    }

    // MARK: Encoding

    /// The packet's bytes.
    ///
    /// - Precondition: strings and binary fields of at most 65,535 bytes (topics, client id,
    ///   user name, password), a whole packet within ``maxRemainingLength``; the client checks
    ///   what it is given before it encodes.
    package var encoded: [UInt8] {
        var body: [UInt8] = []
        let first: UInt8
        switch self {
        case .connect(let connect):
            first = 0x10
            Self.append(string: "MQTT", to: &body)
            body.append(4)  // protocol level 3.1.1
            var flags: UInt8 = connect.cleanSession ? 0x02 : 0
            if let will = connect.will {
                flags |= 0x04 | (will.qos & 0x03) << 3 | (will.retain ? 0x20 : 0)
            }
            if connect.password != nil { flags |= 0x40 }
            if connect.username != nil { flags |= 0x80 }
            body.append(flags)
            Self.append(UInt16: connect.keepAlive, to: &body)
            Self.append(string: connect.clientID, to: &body)
            if let will = connect.will {
                Self.append(string: will.topic, to: &body)
                Self.append(binary: will.payload, to: &body)
            }
            if let username = connect.username { Self.append(string: username, to: &body) }
            if let password = connect.password { Self.append(binary: password, to: &body) }
        case .connack(let sessionPresent, let returnCode):
            first = 0x20
            body = [sessionPresent ? 1 : 0, returnCode]
        case .publish(let message, let packetID, let duplicate):
            first = 0x30 | (duplicate ? 0x08 : 0) | (message.qos & 0x03) << 1 | (message.retain ? 0x01 : 0)
            Self.append(string: message.topic, to: &body)
            if let packetID { Self.append(UInt16: packetID, to: &body) }
            body += message.payload
        case .puback(let packetID):
            first = 0x40
            Self.append(UInt16: packetID, to: &body)
        case .subscribe(let packetID, let topics):
            first = 0x82
            Self.append(UInt16: packetID, to: &body)
            for topic in topics {
                Self.append(string: topic.filter, to: &body)
                body.append(topic.qos)
            }
        case .suback(let packetID, let returnCodes):
            first = 0x90
            Self.append(UInt16: packetID, to: &body)
            body += returnCodes
        case .pingreq: first = 0xC0
        case .pingresp: first = 0xD0
        case .disconnect: first = 0xE0
        }
        return [first] + Self.remainingLength(body.count) + body
    }

    /// The variable-length encoding of a remaining length (seven bits a byte, low first).
    static func remainingLength(_ length: Int) -> [UInt8] {
        var length = length
        var bytes: [UInt8] = []
        repeat {
            var byte = UInt8(length % 128)
            length /= 128
            if length > 0 { byte |= 0x80 }
            bytes.append(byte)
        } while length > 0
        return bytes
    }

    private static func append(UInt16 value: UInt16, to bytes: inout [UInt8]) {
        bytes.append(UInt8(value >> 8))
        bytes.append(UInt8(value & 0xFF))
    }

    private static func append(string: String, to bytes: inout [UInt8]) {
        append(binary: Array(string.utf8), to: &bytes)
    }

    private static func append(binary: [UInt8], to bytes: inout [UInt8]) {
        append(UInt16: UInt16(clamping: binary.count), to: &bytes)
        bytes += binary.prefix(Int(UInt16.max))
    }

    // MARK: Decoding

    /// The first whole packet at the start of `bytes` and how many bytes it took; `nil` while
    /// `bytes` holds only part of one.
    ///
    /// - Parameter maxLength: the largest remaining length accepted (a broker's packet to a
    ///   publishing client is small; a longer one is an error, not a read of megabytes).
    /// - Throws: ``MQTTError/protocolViolation(_:)`` naming what is malformed.
    package static func decode(_ bytes: ArraySlice<UInt8>, maxLength: Int = 1 << 20) throws(MQTTError) -> (MQTTPacket, Int)? {
        guard let first = bytes.first else { return nil }
        var length = 0
        var multiplier = 1
        var index = bytes.startIndex + 1
        while true {
            guard index < bytes.endIndex else { return nil }
            let byte = bytes[index]
            length += Int(byte & 0x7F) * multiplier
            index += 1
            if byte & 0x80 == 0 { break }
            multiplier *= 128
            guard multiplier <= 128 * 128 * 128 else { throw .protocolViolation("a remaining length longer than four bytes") }
        }
        guard length <= maxLength else {
            throw .protocolViolation("a packet of \(length) bytes, more than the \(maxLength) a publishing client takes")
        }
        guard bytes.endIndex - index >= length else { return nil }
        let body = bytes[index..<(index + length)]
        let packet = try decode(type: first >> 4, flags: first & 0x0F, body: body)
        return (packet, index + length - bytes.startIndex)
    }

    private static func decode(type: UInt8, flags: UInt8, body: ArraySlice<UInt8>) throws(MQTTError) -> MQTTPacket {
        var reader = Reader(bytes: body)
        switch type {
        case 2:
            guard flags == 0, body.count == 2 else { throw .protocolViolation("a CONNACK that is not two bytes") }
            let acknowledge = try reader.byte()
            guard acknowledge & 0xFE == 0 else { throw .protocolViolation("a CONNACK with reserved flags set") }
            return .connack(sessionPresent: acknowledge == 1, returnCode: try reader.byte())
        case 3:
            let qos = (flags >> 1) & 0x03
            guard qos < 3 else { throw .protocolViolation("a PUBLISH of QoS 3") }
            let topic = try reader.string()
            let packetID = qos > 0 ? try reader.uint16() : nil
            let message = Message(topic: topic, payload: Array(reader.rest), qos: qos, retain: flags & 0x01 != 0)
            return .publish(message, packetID: packetID, duplicate: flags & 0x08 != 0)
        case 4:
            guard flags == 0, body.count == 2 else { throw .protocolViolation("a PUBACK that is not two bytes") }
            return .puback(packetID: try reader.uint16())
        case 9:
            guard flags == 0, body.count >= 3 else { throw .protocolViolation("a SUBACK without a return code") }
            return .suback(packetID: try reader.uint16(), returnCodes: Array(reader.rest))
        case 13:
            guard flags == 0, body.isEmpty else { throw .protocolViolation("a PINGRESP with a body") }
            return .pingresp
        case 1, 8, 12, 14:
            throw .protocolViolation("a packet only a client sends (type \(type))")
        default:
            throw .protocolViolation("a packet of type \(type), which a QoS 0 and 1 publisher does not take")
        }
    }

    /// Reads fields of a packet's body.
    private struct Reader {
        var bytes: ArraySlice<UInt8>

        mutating func byte() throws(MQTTError) -> UInt8 {
            guard let first = bytes.first else { throw .protocolViolation("a packet shorter than its fields") }
            bytes = bytes.dropFirst()
            return first
        }

        mutating func uint16() throws(MQTTError) -> UInt16 {
            let high = try byte()
            return UInt16(high) << 8 | UInt16(try byte())
        }

        mutating func string() throws(MQTTError) -> String {
            let count = Int(try uint16())
            guard bytes.count >= count else { throw .protocolViolation("a string longer than its packet") }
            let text = bytes.prefix(count)
            bytes = bytes.dropFirst(count)
            guard let string = String(validating: text, as: UTF8.self) else {
                throw .protocolViolation("a topic that is not UTF-8")
            }
            return string
        }

        var rest: ArraySlice<UInt8> { bytes }
    }
}

/// What goes wrong between an MQTT client and its broker.
package enum MQTTError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The broker sent bytes that break MQTT 3.1.1.
    case protocolViolation(String)
    /// The broker refused the connection (CONNACK return code 1–5).
    case refused(UInt8)
    /// The network: connect, send, read, a time-out.
    case network(String)
    /// What the client was asked to publish cannot be sent (a topic too long, a bad character).
    case invalid(String)

    package var description: String {
        switch self {
        case .protocolViolation(let what): "the broker broke the protocol: \(what)"
        case .refused(let code): "the broker refused the connection: \(MQTTPacket.connackReason(code))"
        case .network(let what): what
        case .invalid(let what): what
        }
    }
}
