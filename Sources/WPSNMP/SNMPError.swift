/// Why bytes could not be read as BER or as an SNMP message: what was wrong, and at which byte
/// offset of the input.
package enum SNMPError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The input ended inside an element (`needed` bytes more were announced or required).
    case truncated(offset: Int, needed: Int)
    /// A length byte form SNMP does not use: indefinite (`0x80`) or more than 4 length bytes.
    case unsupportedLength(offset: Int)
    /// A tag in the high-tag-number form (`0x1F` low bits), which SNMP never uses.
    case unsupportedTag(offset: Int, tag: UInt8)
    /// An element of another type than the grammar allows at this place.
    case unexpectedTag(offset: Int, expected: String, found: UInt8)
    /// Constructed elements nested deeper than ``BERReader/maxDepth``.
    case tooDeep(offset: Int)
    /// An INTEGER, counter, gauge or time ticks value that is empty or does not fit its type.
    case badInteger(offset: Int, type: String)
    /// An OBJECT IDENTIFIER that is empty, has a sub-identifier beyond 32 bits, a non-minimal
    /// sub-identifier, more than ``OID/maxComponents`` sub-identifiers, or ends mid sub-identifier.
    case badObjectIdentifier(offset: Int, reason: String)
    /// A NULL, IpAddress or exception value of the wrong content length.
    case badLength(offset: Int, type: String, length: Int)
    /// Bytes after the element that should have ended the input or its enclosing element.
    case trailingBytes(offset: Int)
    /// An SNMP version other than 1 (`0`) and 2c (`1`).
    case unsupportedVersion(Int)
    /// A PDU type the version does not have (GetBulk in SNMPv1), or an unknown PDU tag.
    case unsupportedPDU(tag: UInt8)

    package var description: String {
        switch self {
        case .truncated(let offset, let needed): "BER: input ends at byte \(offset), \(needed) more bytes needed"
        case .unsupportedLength(let offset): "BER: unsupported length form at byte \(offset) (indefinite or over 4 bytes)"
        case .unsupportedTag(let offset, let tag): "BER: unsupported high-number tag 0x\(hex(tag)) at byte \(offset)"
        case .unexpectedTag(let offset, let expected, let found): "BER: expected \(expected) at byte \(offset), found tag 0x\(hex(found))"
        case .tooDeep(let offset): "BER: nesting deeper than \(BERReader.maxDepth) at byte \(offset)"
        case .badInteger(let offset, let type): "BER: \(type) at byte \(offset) is empty or out of range"
        case .badObjectIdentifier(let offset, let reason): "BER: OBJECT IDENTIFIER at byte \(offset): \(reason)"
        case .badLength(let offset, let type, let length): "BER: \(type) at byte \(offset) has content length \(length)"
        case .trailingBytes(let offset): "BER: unexpected bytes from byte \(offset)"
        case .unsupportedVersion(let version): "SNMP: unsupported version \(version) (1 and 2c are served)"
        case .unsupportedPDU(let tag): "SNMP: unsupported PDU tag 0x\(hex(tag))"
        }
    }
}

private func hex(_ byte: UInt8) -> String {
    let digits = Array("0123456789ABCDEF")
    return String([digits[Int(byte >> 4)], digits[Int(byte & 0x0F)]])
}
