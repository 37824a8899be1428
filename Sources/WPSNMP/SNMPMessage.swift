/// The SNMP versions of community-based messages.
package enum SNMPVersion: Int32, Sendable, Equatable {
    /// SNMPv1 (RFC 1157), `version` field 0.
    case v1 = 0
    /// SNMPv2c (RFC 1901, RFC 3416), `version` field 1.
    case v2c = 1
}

/// The error-status values of RFC 3416 (the first six are SNMPv1's too).
package enum SNMPErrorStatus: Int32, Sendable, Equatable {
    case noError = 0, tooBig = 1, noSuchName = 2, badValue = 3, readOnly = 4, genErr = 5
    case noAccess = 6, wrongType = 7, wrongLength = 8, wrongEncoding = 9, wrongValue = 10, noCreation = 11
    case inconsistentValue = 12, resourceUnavailable = 13, commitFailed = 14, undoFailed = 15
    case authorizationError = 16, notWritable = 17, inconsistentName = 18
}

/// A PDU: its type tag, request id, the two fields after it and its variable bindings. For a
/// GetBulkRequest the two fields are non-repeaters and max-repetitions (RFC 3416 §3); for the
/// other types error-status and error-index.
package struct PDU: Sendable, Equatable {
    /// The context tag (``BERTag/getRequest`` … ``BERTag/report``).
    package var type: UInt8
    package var requestID: Int32
    /// error-status, or non-repeaters in a GetBulkRequest.
    package var field1: Int32
    /// error-index, or max-repetitions in a GetBulkRequest.
    package var field2: Int32
    package var varBinds: [VarBind]

    package init(type: UInt8, requestID: Int32, field1: Int32 = 0, field2: Int32 = 0, varBinds: [VarBind]) {
        self.type = type
        self.requestID = requestID
        self.field1 = field1
        self.field2 = field2
        self.varBinds = varBinds
    }

    /// A Response-PDU.
    package static func response(requestID: Int32, error: SNMPErrorStatus = .noError, index: Int32 = 0,
                                varBinds: [VarBind]) -> PDU {
        PDU(type: BERTag.response, requestID: requestID, field1: error.rawValue, field2: index, varBinds: varBinds)
    }
}

extension PDU {
    /// The PDU element next in `reader`, whose tag must be one of `allowed`.
    init(reading reader: inout BERReader, allowed: [UInt8]) throws(SNMPError) {
        let tag = try reader.peekTag()
        guard allowed.contains(tag) else { throw .unsupportedPDU(tag: tag) }
        var body = try reader.nested(tag: tag, named: "PDU")
        let requestID = try body.readInteger()
        let field1 = try body.readInteger()
        let field2 = try body.readInteger()
        var list = try body.nested(tag: BERTag.sequence, named: "variable-bindings SEQUENCE")
        try body.finish()
        var varBinds: [VarBind] = []
        while !list.isAtEnd {
            var binding = try list.nested(tag: BERTag.sequence, named: "VarBind SEQUENCE")
            let oid = try binding.readOID()
            let value = try binding.readValue()
            try binding.finish()
            varBinds.append(VarBind(oid, value))
        }
        self.init(type: tag, requestID: requestID, field1: field1, field2: field2, varBinds: varBinds)
    }

    /// The PDU element with already-encoded variable bindings (their concatenation).
    func encoded(varBindBytes: [UInt8]) -> [UInt8] {
        BERWriter.element(type, BERWriter.integer(requestID) + BERWriter.integer(field1) + BERWriter.integer(field2)
                          + BERWriter.element(BERTag.sequence, varBindBytes))
    }

    /// The exact size of ``encoded(varBindBytes:)`` when the bindings take `varBindBytes` bytes.
    func encodedSize(varBindBytes: Int) -> Int {
        let fields = BERWriter.integer(requestID).count + BERWriter.integer(field1).count + BERWriter.integer(field2).count
        return BERWriter.encodedSize(contentLength: fields + BERWriter.encodedSize(contentLength: varBindBytes))
    }
}

/// A community-based SNMP message (SNMPv1 and SNMPv2c):
/// `SEQUENCE { version INTEGER, community OCTET STRING, data PDU }`.
///
/// ```swift
/// let message = try SNMPMessage(decoding: datagram)
/// let answer = SNMPMessage(version: message.version, community: message.community,
///                          pdu: .response(requestID: message.pdu.requestID, varBinds: []))
/// let bytes = answer.encoded()
/// ```
package struct SNMPMessage: Sendable, Equatable {
    package var version: SNMPVersion
    package var community: [UInt8]
    package var pdu: PDU

    package init(version: SNMPVersion, community: [UInt8], pdu: PDU) {
        self.version = version
        self.community = community
        self.pdu = pdu
    }

    /// The message in `bytes`, which must hold exactly one message.
    ///
    /// - Throws: ``SNMPError`` for malformed BER (see ``BERReader``), a version other than 1
    ///   and 2c, a PDU tag the version does not have (GetBulk, Inform, SNMPv2-Trap and Report
    ///   in SNMPv1; the SNMPv1 Trap in SNMPv2c), or bytes after the message.
    package init(decoding bytes: [UInt8]) throws(SNMPError) {
        var outer = BERReader(bytes)
        var message = try outer.nested(tag: BERTag.sequence, named: "SNMP message SEQUENCE")
        try outer.finish()
        let rawVersion = try message.readInteger()
        guard let version = SNMPVersion(rawValue: rawVersion) else { throw .unsupportedVersion(Int(rawVersion)) }
        let community = try message.readOctetString()
        let allowed: [UInt8] = switch version {
        case .v1: [BERTag.getRequest, BERTag.getNextRequest, BERTag.response, BERTag.setRequest]
        case .v2c: [BERTag.getRequest, BERTag.getNextRequest, BERTag.response, BERTag.setRequest, BERTag.getBulkRequest,
                    BERTag.informRequest, BERTag.snmpV2Trap, BERTag.report]
        }
        let pdu = try PDU(reading: &message, allowed: allowed)
        try message.finish()
        self.init(version: version, community: community, pdu: pdu)
    }

    /// The message's BER bytes.
    package func encoded() -> [UInt8] {
        encoded(varBindBytes: pdu.varBinds.flatMap(BERWriter.varBind))
    }

    /// The message's BER bytes with already-encoded variable bindings (their concatenation).
    func encoded(varBindBytes: [UInt8]) -> [UInt8] {
        BERWriter.element(BERTag.sequence, BERWriter.integer(version.rawValue) + BERWriter.octetString(community)
                          + pdu.encoded(varBindBytes: varBindBytes))
    }

    /// The exact size of ``encoded()`` when the variable bindings take `varBindBytes` bytes
    /// (the PDU's own `varBinds` are not looked at).
    func encodedSize(varBindBytes: Int) -> Int {
        let content = BERWriter.integer(version.rawValue).count + BERWriter.encodedSize(contentLength: community.count)
            + pdu.encodedSize(varBindBytes: varBindBytes)
        return BERWriter.encodedSize(contentLength: content)
    }
}
