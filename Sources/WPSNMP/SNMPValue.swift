/// A variable binding's value: the SMIv2 types SNMP carries, and the SNMPv2 exceptions that
/// stand in for a value a Get or GetNext could not return (RFC 3416 §3).
package enum SNMPValue: Sendable, Hashable, CustomStringConvertible {
    /// INTEGER / Integer32 (enumerations too).
    case integer(Int32)
    /// OCTET STRING (DisplayString and binary strings).
    case octetString([UInt8])
    case null
    case objectIdentifier(OID)
    /// IpAddress: four bytes, network order.
    case ipAddress(UInt8, UInt8, UInt8, UInt8)
    case counter32(UInt32)
    case gauge32(UInt32)
    /// TimeTicks: hundredths of a second.
    case timeTicks(UInt32)
    /// Opaque: BER bytes wrapped in an OCTET STRING, kept as read.
    case opaque([UInt8])
    /// Counter64: never answered to SNMPv1 (RFC 3584 §4.2.2.1).
    case counter64(UInt64)
    case noSuchObject
    case noSuchInstance
    case endOfMibView

    /// A DisplayString value of `text` (UTF-8 bytes).
    package static func string(_ text: String) -> SNMPValue { .octetString(Array(text.utf8)) }

    /// Whether this is one of the SNMPv2 exceptions.
    package var isException: Bool {
        switch self {
        case .noSuchObject, .noSuchInstance, .endOfMibView: true
        default: false
        }
    }

    package var description: String {
        switch self {
        case .integer(let value): "INTEGER: \(value)"
        case .octetString(let bytes): "STRING: \(String(decoding: bytes, as: UTF8.self).debugDescription)"
        case .null: "NULL"
        case .objectIdentifier(let oid): "OID: \(oid)"
        case .ipAddress(let a, let b, let c, let d): "IpAddress: \(a).\(b).\(c).\(d)"
        case .counter32(let value): "Counter32: \(value)"
        case .gauge32(let value): "Gauge32: \(value)"
        case .timeTicks(let value): "Timeticks: (\(value))"
        case .opaque(let bytes): "Opaque: \(bytes.count) bytes"
        case .counter64(let value): "Counter64: \(value)"
        case .noSuchObject: "No Such Object"
        case .noSuchInstance: "No Such Instance"
        case .endOfMibView: "End of MIB View"
        }
    }
}

/// One variable binding: a name and its value (`NULL` in requests).
package struct VarBind: Sendable, Hashable {
    package var oid: OID
    package var value: SNMPValue

    package init(_ oid: OID, _ value: SNMPValue = .null) {
        self.oid = oid
        self.value = value
    }
}
