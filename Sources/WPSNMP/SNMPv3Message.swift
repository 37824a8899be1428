/// An SNMPv3 message (RFC 3412 §6) with the user-based security model's parameters (RFC 3414
/// §2.4):
///
/// ```
/// SEQUENCE { msgVersion INTEGER (3),
///            msgGlobalData SEQUENCE { msgID, msgMaxSize, msgFlags OCTET STRING (1), msgSecurityModel (3) },
///            msgSecurityParameters OCTET STRING (SEQUENCE { engineID, boots, time, userName,
///                                                           authenticationParameters, privacyParameters }),
///            msgData ScopedPDU | encryptedPDU OCTET STRING }
/// ```
package struct SNMPv3Message: Equatable {
    /// `msgFlags` bits.
    package struct Flags: OptionSet, Equatable {
        package let rawValue: UInt8
        package init(rawValue: UInt8) { self.rawValue = rawValue }
        package static let authenticated = Flags(rawValue: 1)
        package static let encrypted = Flags(rawValue: 2)
        package static let reportable = Flags(rawValue: 4)
    }

    /// `SEQUENCE { contextEngineID, contextName, data PDU }`.
    package struct ScopedPDU: Equatable {
        package var contextEngineID: [UInt8]
        package var contextName: [UInt8]
        package var pdu: PDU
        package init(contextEngineID: [UInt8], contextName: [UInt8], pdu: PDU) {
            self.contextEngineID = contextEngineID
            self.contextName = contextName
            self.pdu = pdu
        }
    }

    /// The user-based security model's number in `msgSecurityModel`.
    static let userBasedSecurityModel: Int32 = 3
    /// The PDU types an SNMPv3 scoped PDU may carry (RFC 3416's, without SNMPv1's Trap).
    static let pduTypes: [UInt8] = [BERTag.getRequest, BERTag.getNextRequest, BERTag.response, BERTag.setRequest,
                                    BERTag.getBulkRequest, BERTag.informRequest, BERTag.snmpV2Trap, BERTag.report]

    package var messageID: Int32
    package var maxSize: Int32
    package var flags: Flags
    var securityModel: Int32
    var engineID: [UInt8]
    var boots: Int32
    var time: Int32
    var userName: [UInt8]
    var authenticationParameters: [UInt8]
    var privacyParameters: [UInt8]
    /// The scoped PDU in the clear, or encrypted (the OCTET STRING's content).
    package var data: Data
    /// Where `authenticationParameters` lie in the decoded bytes (to check the MAC).
    var authenticationRange: Range<Int> = 0..<0

    package enum Data: Equatable {
        case plain(ScopedPDU)
        case encrypted([UInt8])
    }

    /// Whether `bytes` is an SNMPv3 message, by its version field alone (the agent's dispatch).
    static func isVersion3(_ bytes: [UInt8]) -> Bool {
        var outer = BERReader(bytes)
        guard var message = try? outer.nested(tag: BERTag.sequence, named: "SNMP message SEQUENCE") else { return false }
        return (try? message.readInteger()) == 3
    }

    /// The message in `bytes`, which must hold exactly one.
    ///
    /// - Throws: ``SNMPError`` for malformed BER, a version other than 3, a `msgFlags` that is
    ///   not one byte, a scoped PDU of another type, or trailing bytes.
    package init(decoding bytes: [UInt8]) throws(SNMPError) {
        var outer = BERReader(bytes)
        var message = try outer.nested(tag: BERTag.sequence, named: "SNMP message SEQUENCE")
        try outer.finish()
        let version = try message.readInteger()
        guard version == 3 else { throw .unsupportedVersion(Int(version)) }
        var global = try message.nested(tag: BERTag.sequence, named: "msgGlobalData SEQUENCE")
        messageID = try global.readInteger()
        maxSize = try global.readInteger()
        let flagStart = global.position
        let flagBytes = try global.readOctetString()
        guard flagBytes.count == 1 else { throw .badLength(offset: flagStart, type: "msgFlags", length: flagBytes.count) }
        flags = Flags(rawValue: flagBytes[0] & 0x07)
        securityModel = try global.readInteger()
        try global.finish()
        var securityOctets = try message.nested(tag: BERTag.octetString, named: "msgSecurityParameters OCTET STRING")
        var security = try securityOctets.nested(tag: BERTag.sequence, named: "UsmSecurityParameters SEQUENCE")
        try securityOctets.finish()
        engineID = try security.readOctetString()
        boots = try security.readInteger()
        time = try security.readInteger()
        userName = try security.readOctetString()
        authenticationRange = try security.readElement(tag: BERTag.octetString, named: "msgAuthenticationParameters")
        authenticationParameters = Array(bytes[authenticationRange])
        privacyParameters = try security.readOctetString()
        try security.finish()
        if try message.peekTag() == BERTag.octetString {
            data = .encrypted(try message.readOctetString())
        } else {
            var scoped = try message.nested(tag: BERTag.sequence, named: "ScopedPDU SEQUENCE")
            data = .plain(try Self.scopedPDU(&scoped))
        }
        try message.finish()
    }

    package init(messageID: Int32, maxSize: Int32, flags: Flags, engineID: [UInt8], boots: Int32, time: Int32,
         userName: [UInt8], privacyParameters: [UInt8] = [], data: Data) {
        self.messageID = messageID
        self.maxSize = maxSize
        self.flags = flags
        self.securityModel = Self.userBasedSecurityModel
        self.engineID = engineID
        self.boots = boots
        self.time = time
        self.userName = userName
        self.authenticationParameters = []
        self.privacyParameters = privacyParameters
        self.data = data
    }

    /// A scoped PDU's content (after its SEQUENCE header).
    static func scopedPDU(_ reader: inout BERReader) throws(SNMPError) -> ScopedPDU {
        let contextEngineID = try reader.readOctetString()
        let contextName = try reader.readOctetString()
        let pdu = try PDU(reading: &reader, allowed: pduTypes)
        try reader.finish()
        return ScopedPDU(contextEngineID: contextEngineID, contextName: contextName, pdu: pdu)
    }

    /// A decrypted scoped PDU (`bytes` must hold exactly the SEQUENCE).
    static func scopedPDU(decrypted bytes: [UInt8]) throws(SNMPError) -> ScopedPDU {
        var outer = BERReader(bytes)
        var scoped = try outer.nested(tag: BERTag.sequence, named: "ScopedPDU SEQUENCE")
        // RFC 3826 CFB needs no padding, but encoders may pad to a block: bytes after the
        // SEQUENCE are ignored (RFC 3414 §3.2 step 8 decodes "the" scopedPDU).
        return try scopedPDU(&scoped)
    }

    /// The scoped PDU's SEQUENCE with already-encoded bindings.
    static func scopedPDUBytes(contextEngineID: [UInt8], contextName: [UInt8], pdu: PDU, varBindBytes: [UInt8]) -> [UInt8] {
        BERWriter.element(BERTag.sequence, BERWriter.octetString(contextEngineID) + BERWriter.octetString(contextName)
                          + pdu.encoded(varBindBytes: varBindBytes))
    }

    /// The size of ``scopedPDUBytes(contextEngineID:contextName:pdu:varBindBytes:)``.
    static func scopedPDUSize(contextEngineID: [UInt8], contextName: [UInt8], pdu: PDU, varBindBytes: Int) -> Int {
        BERWriter.encodedSize(contentLength: BERWriter.encodedSize(contentLength: contextEngineID.count)
                              + BERWriter.encodedSize(contentLength: contextName.count) + pdu.encodedSize(varBindBytes: varBindBytes))
    }

    /// The message's bytes with `authenticationLength` zero bytes as its authentication
    /// parameters, and where they are (for the MAC to be written there). `dataBytes` is the
    /// scoped PDU's SEQUENCE, or its encryption (written as an OCTET STRING).
    func encoded(dataBytes: [UInt8], authenticationLength: Int) -> (bytes: [UInt8], authentication: Range<Int>) {
        let global = BERWriter.element(BERTag.sequence, BERWriter.integer(messageID) + BERWriter.integer(maxSize)
                                       + BERWriter.octetString([flags.rawValue]) + BERWriter.integer(securityModel))
        let beforeAuthentication = BERWriter.octetString(engineID) + BERWriter.integer(boots) + BERWriter.integer(time)
            + BERWriter.octetString(userName)
        let authentication = BERWriter.octetString([UInt8](repeating: 0, count: authenticationLength))
        let securityContent = beforeAuthentication + authentication + BERWriter.octetString(privacyParameters)
        let securitySequence = BERWriter.element(BERTag.sequence, securityContent)
        let security = BERWriter.element(BERTag.octetString, securitySequence)
        let data = flags.contains(.encrypted) ? BERWriter.octetString(dataBytes) : dataBytes
        let content = BERWriter.integer(3) + global + security + data
        let bytes = BERWriter.element(BERTag.sequence, content)
        let header = { (element: [UInt8], contentCount: Int) in element.count - contentCount }
        let offset = header(bytes, content.count) + BERWriter.integer(3).count + global.count
            + header(security, securitySequence.count) + header(securitySequence, securityContent.count)
            + beforeAuthentication.count + header(authentication, authenticationLength)
        return (bytes, offset..<(offset + authenticationLength))
    }

    /// The size of ``encoded(dataBytes:authenticationLength:)`` for data of `dataCount` bytes.
    func encodedSize(dataCount: Int, authenticationLength: Int) -> Int {
        let global = BERWriter.integer(messageID).count + BERWriter.integer(maxSize).count + 3 + BERWriter.integer(securityModel).count
        let securityContent = BERWriter.encodedSize(contentLength: engineID.count) + BERWriter.integer(boots).count
            + BERWriter.integer(time).count + BERWriter.encodedSize(contentLength: userName.count)
            + BERWriter.encodedSize(contentLength: authenticationLength) + BERWriter.encodedSize(contentLength: privacyParameters.count)
        let security = BERWriter.encodedSize(contentLength: BERWriter.encodedSize(contentLength: securityContent))
        let data = flags.contains(.encrypted) ? BERWriter.encodedSize(contentLength: dataCount) : dataCount
        return BERWriter.encodedSize(contentLength: 3 + BERWriter.encodedSize(contentLength: global) + security + data)
    }
}
