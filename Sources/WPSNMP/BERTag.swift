/// The BER tags SNMP uses (X.690 universal types, SMIv2 application types, SNMPv2 exceptions
/// and the PDU context tags of RFC 3416).
package enum BERTag {
    package static let integer: UInt8 = 0x02
    package static let octetString: UInt8 = 0x04
    package static let null: UInt8 = 0x05
    package static let objectIdentifier: UInt8 = 0x06
    package static let sequence: UInt8 = 0x30

    package static let ipAddress: UInt8 = 0x40
    package static let counter32: UInt8 = 0x41
    package static let gauge32: UInt8 = 0x42
    package static let timeTicks: UInt8 = 0x43
    package static let opaque: UInt8 = 0x44
    package static let counter64: UInt8 = 0x46

    package static let noSuchObject: UInt8 = 0x80
    package static let noSuchInstance: UInt8 = 0x81
    package static let endOfMibView: UInt8 = 0x82

    package static let getRequest: UInt8 = 0xA0
    package static let getNextRequest: UInt8 = 0xA1
    package static let response: UInt8 = 0xA2
    package static let setRequest: UInt8 = 0xA3
    /// SNMPv1 Trap-PDU (RFC 1157); read only to be refused.
    package static let trapV1: UInt8 = 0xA4
    package static let getBulkRequest: UInt8 = 0xA5
    package static let informRequest: UInt8 = 0xA6
    package static let snmpV2Trap: UInt8 = 0xA7
    package static let report: UInt8 = 0xA8

    /// Whether `tag` is constructed (bit 6 set): its content is a sequence of elements.
    package static func isConstructed(_ tag: UInt8) -> Bool { tag & 0x20 != 0 }
}
