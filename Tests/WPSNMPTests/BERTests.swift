import Testing
import WPTestThreads
@testable import WPSNMP

/// `snmpget -v2c -c public HOST 1.3.6.1.2.1.1.1.0` as net-snmp 5.9.3 sent it (captured on
/// loopback): a 4-byte request id, error-status and error-index 0, one binding with a NULL value.
let sysDescrRequest: [UInt8] = [
    0x30, 0x29, 0x02, 0x01, 0x01, 0x04, 0x06, 0x70, 0x75, 0x62, 0x6C, 0x69, 0x63,
    0xA0, 0x1C, 0x02, 0x04, 0x0C, 0x14, 0xF5, 0x4B, 0x02, 0x01, 0x00, 0x02, 0x01, 0x00,
    0x30, 0x0E, 0x30, 0x0C, 0x06, 0x08, 0x2B, 0x06, 0x01, 0x02, 0x01, 0x01, 0x01, 0x00, 0x05, 0x00,
]

@Suite(.ownThreads, .timeLimit(.minutes(2))) struct BERTests {
    @Test(arguments: [
        (Int32(0), [0x02, 0x01, 0x00] as [UInt8]), (Int32(127), [0x02, 0x01, 0x7F]), (Int32(128), [0x02, 0x02, 0x00, 0x80]),
        (Int32(-1), [0x02, 0x01, 0xFF]), (Int32(-128), [0x02, 0x01, 0x80]), (Int32(-129), [0x02, 0x02, 0xFF, 0x7F]),
        (Int32.max, [0x02, 0x04, 0x7F, 0xFF, 0xFF, 0xFF] as [UInt8]), (Int32.min, [0x02, 0x04, 0x80, 0x00, 0x00, 0x00] as [UInt8]),
    ])
    func integersEncodeMinimallyAndRoundTrip(value: Int32, bytes: [UInt8]) throws {
        #expect(BERWriter.integer(value) == bytes)
        var reader = BERReader(bytes)
        #expect(try reader.readInteger() == value)
        try reader.finish()
    }

    @Test func knownValueEncodings() {
        #expect(BERWriter.value(.counter32(UInt32.max)) == [0x41, 0x05, 0x00, 0xFF, 0xFF, 0xFF, 0xFF])
        #expect(BERWriter.value(.gauge32(0)) == [0x42, 0x01, 0x00])
        #expect(BERWriter.value(.timeTicks(300)) == [0x43, 0x02, 0x01, 0x2C])
        #expect(BERWriter.value(.counter64(UInt64.max)) == [0x46, 0x09, 0x00] + [UInt8](repeating: 0xFF, count: 8))
        #expect(BERWriter.value(.ipAddress(192, 0, 2, 1)) == [0x40, 0x04, 192, 0, 2, 1])
        #expect(BERWriter.value(.null) == [0x05, 0x00])
        #expect(BERWriter.value(.noSuchObject) == [0x80, 0x00])
        #expect(BERWriter.value(.noSuchInstance) == [0x81, 0x00])
        #expect(BERWriter.value(.endOfMibView) == [0x82, 0x00])
        #expect(BERWriter.oid("1.3.6.1.2.1.1.1.0") == [0x06, 0x08, 0x2B, 0x06, 0x01, 0x02, 0x01, 0x01, 0x01, 0x00])
        #expect(BERWriter.oid("1.3.4294967295") == [0x06, 0x06, 0x2B, 0x8F, 0xFF, 0xFF, 0xFF, 0x7F])
        #expect(BERWriter.oid("2.999.3") == [0x06, 0x03, 0x88, 0x37, 0x03])
        #expect(BERWriter.octetString([UInt8](repeating: 0x41, count: 200)).prefix(3) == [0x04, 0x81, 0xC8])
        #expect(BERWriter.octetString([UInt8](repeating: 0x41, count: 300)).prefix(4) == [0x04, 0x82, 0x01, 0x2C])
        #expect(BERWriter.encodedSize(contentLength: 300) == 304)
    }

    @Test func everyValueRoundTrips() throws {
        let values: [SNMPValue] = [
            .integer(-5), .integer(Int32.max), .string("ups-gw"), .octetString([]), .octetString([UInt8](repeating: 7, count: 70_000)),
            .null, .objectIdentifier("1.3.6.1.2.1.33.1.6.3.2"), .objectIdentifier("2.999.1"), .objectIdentifier("0.39"),
            .ipAddress(10, 1, 2, 3), .counter32(0), .counter32(0x8000_0000), .gauge32(100), .timeTicks(UInt32.max),
            .opaque([0x9F, 0x78, 0x04, 0x42, 0xF6, 0x00, 0x00]), .counter64(0), .counter64(1 << 63),
            .noSuchObject, .noSuchInstance, .endOfMibView,
        ]
        for value in values {
            var reader = BERReader(BERWriter.value(value))
            #expect(try reader.readValue() == value, "\(value)")
            try reader.finish()
        }
    }

    @Test func oidOf128SubidentifiersIsTheMostAccepted() throws {
        let longest = OID([1, 3] + [UInt32](repeating: UInt32.max, count: 126))
        var reader = BERReader(BERWriter.oid(longest))
        #expect(try reader.readOID() == longest)
        var content = BERWriter.oidContent(longest)
        content += [0x01]
        var tooLong = BERReader(BERWriter.element(BERTag.objectIdentifier, content))
        #expect(throws: SNMPError.badObjectIdentifier(offset: 0, reason: "more than 128 sub-identifiers")) { try tooLong.readOID() }
        #expect(OID(parsing: longest.description) == longest)
        #expect(OID(parsing: longest.description + ".1") == nil)
        #expect(OID(parsing: "1.3.4294967296") == nil)
        #expect(OID(parsing: "1..3") == nil)
        #expect(OID(parsing: ".1.3.6") == OID([1, 3, 6]))
        #expect(OID(parsing: "") == nil)
    }

    @Test(arguments: [
        ([0x02, 0x00] as [UInt8], "empty INTEGER"),
        ([0x02, 0x05, 0x01, 0x00, 0x00, 0x00, 0x00], "INTEGER beyond 32 bits"),
        ([0x02, 0x09, 0x01, 0, 0, 0, 0, 0, 0, 0, 0], "INTEGER of 9 bytes"),
        ([0x41, 0x06, 0x00, 0x01, 0, 0, 0, 0], "Counter32 beyond 32 bits"),
        ([0x41, 0x01, 0x80], "negative Counter32"),
        ([0x46, 0x0A, 0x00, 0x01, 0, 0, 0, 0, 0, 0, 0, 0], "Counter64 beyond 64 bits"),
        ([0x05, 0x01, 0x00], "NULL with content"),
        ([0x40, 0x03, 1, 2, 3], "IpAddress of 3 bytes"),
        ([0x80, 0x01, 0x00], "noSuchObject with content"),
        ([0x06, 0x00], "empty OID"),
        ([0x06, 0x02, 0x2B, 0x86], "OID ending mid sub-identifier"),
        ([0x06, 0x03, 0x2B, 0x80, 0x01], "OID sub-identifier with a leading zero group"),
        ([0x06, 0x06, 0x2B, 0x90, 0x80, 0x80, 0x80, 0x00], "OID sub-identifier of 2^32"),
        ([0x04, 0x05, 0x01, 0x02], "length beyond the input"),
        ([0x04, 0x84, 0xFF, 0xFF, 0xFF, 0xFF], "4-byte length beyond the input"),
        ([0x04, 0x85, 0, 0, 0, 0, 1, 0], "5 length bytes"),
        ([0x04, 0x80, 0x00, 0x00], "indefinite length"),
        ([0x04, 0x82, 0x01], "length bytes cut"),
        ([0x04], "no length"),
        ([], "nothing"),
        ([0x1F, 0x01, 0x00], "high-number tag"),
        ([0x30, 0x00], "SEQUENCE as a value"),
        ([0x07, 0x00], "unknown universal type"),
    ])
    func malformedValuesThrow(bytes: [UInt8], what: String) {
        var reader = BERReader(bytes)
        #expect(throws: SNMPError.self, "\(what)") { try reader.readValue() }
    }

    @Test func nestingDeeperThanTheCapIsRefused() throws {
        func nested(_ depth: Int) -> [UInt8] {
            var bytes: [UInt8] = [0x05, 0x00]
            for _ in 0..<depth { bytes = BERWriter.element(BERTag.sequence, bytes) }
            return bytes
        }
        var within = BERReader(nested(BERReader.maxDepth))
        try within.skipElement()
        try within.finish()
        var deeper = BERReader(nested(BERReader.maxDepth + 1))
        #expect(throws: SNMPError.tooDeep(offset: 2 * BERReader.maxDepth)) { try deeper.skipElement() }
        // A message whose binding value is deeply nested is refused too (not a value type).
        var message = Array(sysDescrRequest.dropLast(2))
        message += nested(200)
        #expect(throws: SNMPError.self) { try SNMPMessage(decoding: message) }
    }

    @Test func netSNMPGetRequestDecodesAndReencodesByteForByte() throws {
        let message = try SNMPMessage(decoding: sysDescrRequest)
        #expect(message.version == .v2c)
        #expect(message.community == Array("public".utf8))
        #expect(message.pdu.type == BERTag.getRequest)
        #expect(message.pdu.requestID == 0x0C14_F54B)
        #expect(message.pdu.varBinds == [VarBind("1.3.6.1.2.1.1.1.0", .null)])
        #expect(message.encoded() == sysDescrRequest)
        #expect(message.encodedSize(varBindBytes: 14) == sysDescrRequest.count)
    }

    /// `snmpbulkget -v2c -c public -Cn0 -Cr10 HOST 1.3.6.1.2.1.33` from net-snmp 5.9.3 (captured).
    @Test func netSNMPGetBulkRequestDecodes() throws {
        let bytes: [UInt8] = [
            0x30, 0x27, 0x02, 0x01, 0x01, 0x04, 0x06, 0x70, 0x75, 0x62, 0x6C, 0x69, 0x63,
            0xA5, 0x1A, 0x02, 0x04, 0x56, 0x79, 0x44, 0x2A, 0x02, 0x01, 0x00, 0x02, 0x01, 0x0A,
            0x30, 0x0C, 0x30, 0x0A, 0x06, 0x06, 0x2B, 0x06, 0x01, 0x02, 0x01, 0x21, 0x05, 0x00,
        ]
        let message = try SNMPMessage(decoding: bytes)
        #expect(message.pdu == PDU(type: BERTag.getBulkRequest, requestID: 0x5679_442A, field1: 0, field2: 10,
                                   varBinds: [VarBind("1.3.6.1.2.1.33")]))
        #expect(message.encoded() == bytes)
    }

    @Test func everyTruncationOfAMessageThrows() {
        for length in 0..<sysDescrRequest.count {
            #expect(throws: SNMPError.self, "first \(length) bytes") { try SNMPMessage(decoding: Array(sysDescrRequest.prefix(length))) }
        }
        #expect(throws: SNMPError.trailingBytes(offset: 43)) { try SNMPMessage(decoding: sysDescrRequest + [0x00]) }
    }

    @Test func versionsAndPDUsOutsideV1AndV2cAreRefused() {
        var v3 = sysDescrRequest
        v3[4] = 0x03
        #expect(throws: SNMPError.unsupportedVersion(3)) { try SNMPMessage(decoding: v3) }
        var bulkInV1 = sysDescrRequest
        bulkInV1[4] = 0x00
        bulkInV1[13] = BERTag.getBulkRequest
        #expect(throws: SNMPError.unsupportedPDU(tag: 0xA5)) { try SNMPMessage(decoding: bulkInV1) }
        var trapV1InV2c = sysDescrRequest
        trapV1InV2c[13] = BERTag.trapV1
        #expect(throws: SNMPError.unsupportedPDU(tag: 0xA4)) { try SNMPMessage(decoding: trapV1InV2c) }
    }

    @Test func everyPDUTypeRoundTrips() throws {
        for type in [BERTag.getRequest, BERTag.getNextRequest, BERTag.response, BERTag.setRequest, BERTag.getBulkRequest,
                     BERTag.informRequest, BERTag.snmpV2Trap, BERTag.report] {
            let message = SNMPMessage(version: .v2c, community: Array("c".utf8),
                                      pdu: PDU(type: type, requestID: -7, field1: 2, field2: 300,
                                               varBinds: [VarBind("1.3.6.1.2.1.1.3.0", .timeTicks(12)),
                                                          VarBind("1.3.6.1.6.3.1.1.4.1.0", .objectIdentifier("1.3.6.1.2.1.33.2.1"))]))
            #expect(try SNMPMessage(decoding: message.encoded()) == message)
            #expect(message.encodedSize(varBindBytes: message.pdu.varBinds.flatMap(BERWriter.varBind).count) == message.encoded().count)
        }
    }

    @Test func errorsNameWhatAndWhere() {
        #expect(SNMPError.truncated(offset: 12, needed: 3).description == "BER: input ends at byte 12, 3 more bytes needed")
        #expect(SNMPError.unexpectedTag(offset: 4, expected: "INTEGER", found: 0x1E).description
            == "BER: expected INTEGER at byte 4, found tag 0x1E")
    }
}
