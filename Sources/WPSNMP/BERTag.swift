/// The BER tags SNMP uses (X.690 universal types, SMIv2 application types, SNMPv2 exceptions
/// and the PDU context tags of RFC 3416).
public enum BERTag {
    public static let integer: UInt8 = 0x02
    public static let octetString: UInt8 = 0x04
    public static let null: UInt8 = 0x05
    public static let objectIdentifier: UInt8 = 0x06
    public static let sequence: UInt8 = 0x30

    public static let ipAddress: UInt8 = 0x40
    public static let counter32: UInt8 = 0x41
    public static let gauge32: UInt8 = 0x42
    public static let timeTicks: UInt8 = 0x43
    public static let opaque: UInt8 = 0x44
    public static let counter64: UInt8 = 0x46

    public static let noSuchObject: UInt8 = 0x80
    public static let noSuchInstance: UInt8 = 0x81
    public static let endOfMibView: UInt8 = 0x82

    public static let getRequest: UInt8 = 0xA0
    public static let getNextRequest: UInt8 = 0xA1
    public static let response: UInt8 = 0xA2
    public static let setRequest: UInt8 = 0xA3
    /// SNMPv1 Trap-PDU (RFC 1157); read only to be refused.
    public static let trapV1: UInt8 = 0xA4
    public static let getBulkRequest: UInt8 = 0xA5
    public static let informRequest: UInt8 = 0xA6
    public static let snmpV2Trap: UInt8 = 0xA7
    public static let report: UInt8 = 0xA8

    /// Whether `tag` is constructed (bit 6 set): its content is a sequence of elements.
    public static func isConstructed(_ tag: UInt8) -> Bool { tag & 0x20 != 0 }
}
