/// Encodes the BER subset SNMP uses, in the minimal definite-length form (DER-like), so that
/// sizes are predictable: ``encodedSize(contentLength:)`` is exact.
package enum BERWriter {
    /// The bytes of one element: `tag`, the length of `content`, `content`.
    package static func element(_ tag: UInt8, _ content: [UInt8]) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(encodedSize(contentLength: content.count))
        bytes.append(tag)
        appendLength(content.count, to: &bytes)
        bytes += content
        return bytes
    }

    /// The size of an element whose content is `contentLength` bytes (tag, length, content).
    package static func encodedSize(contentLength: Int) -> Int {
        1 + lengthSize(contentLength) + contentLength
    }

    /// The number of bytes of a length field for `length`.
    package static func lengthSize(_ length: Int) -> Int {
        if length < 0x80 { return 1 }
        var count = 0
        var rest = length
        while rest > 0 {
            count += 1
            rest >>= 8
        }
        return 1 + count
    }

    static func appendLength(_ length: Int, to bytes: inout [UInt8]) {
        if length < 0x80 {
            bytes.append(UInt8(length))
            return
        }
        let count = lengthSize(length) - 1
        bytes.append(0x80 | UInt8(count))
        for shift in stride(from: (count - 1) * 8, through: 0, by: -8) { bytes.append(UInt8(truncatingIfNeeded: length >> shift)) }
    }

    /// An INTEGER.
    package static func integer(_ value: Int32) -> [UInt8] { element(BERTag.integer, signedContent(Int64(value))) }

    /// An OCTET STRING.
    package static func octetString(_ bytes: [UInt8]) -> [UInt8] { element(BERTag.octetString, bytes) }

    /// An OBJECT IDENTIFIER. An OID of fewer than two sub-identifiers is encoded with its
    /// missing arcs as 0 (X.690 needs two); one whose first two arcs do not fit the combined
    /// first sub-identifier (`X > 2`, or `Y ≥ 40` with `X < 2`) has them clamped. Neither
    /// occurs in OIDs the agent reads or builds.
    package static func oid(_ oid: OID) -> [UInt8] { element(BERTag.objectIdentifier, oidContent(oid)) }

    /// A variable binding's value.
    package static func value(_ value: SNMPValue) -> [UInt8] {
        switch value {
        case .integer(let number): integer(number)
        case .octetString(let bytes): octetString(bytes)
        case .null: [BERTag.null, 0]
        case .objectIdentifier(let name): oid(name)
        case .ipAddress(let a, let b, let c, let d): element(BERTag.ipAddress, [a, b, c, d])
        case .counter32(let number): element(BERTag.counter32, unsignedContent(UInt64(number)))
        case .gauge32(let number): element(BERTag.gauge32, unsignedContent(UInt64(number)))
        case .timeTicks(let number): element(BERTag.timeTicks, unsignedContent(UInt64(number)))
        case .opaque(let bytes): element(BERTag.opaque, bytes)
        case .counter64(let number): element(BERTag.counter64, unsignedContent(number))
        case .noSuchObject: [BERTag.noSuchObject, 0]
        case .noSuchInstance: [BERTag.noSuchInstance, 0]
        case .endOfMibView: [BERTag.endOfMibView, 0]
        }
    }

    /// A variable binding: `SEQUENCE { name OBJECT IDENTIFIER, value }`.
    package static func varBind(_ varBind: VarBind) -> [UInt8] {
        element(BERTag.sequence, oid(varBind.oid) + value(varBind.value))
    }

    /// The minimal two's complement bytes of `value`.
    static func signedContent(_ value: Int64) -> [UInt8] {
        var bytes: [UInt8] = []
        var rest = value
        repeat {
            bytes.append(UInt8(truncatingIfNeeded: rest))
            rest >>= 8
        } while !(rest == 0 && (bytes.last ?? 0) & 0x80 == 0) && !(rest == -1 && (bytes.last ?? 0) & 0x80 != 0)
        return bytes.reversed()
    }

    /// The minimal bytes of a non-negative `value`, with a leading zero when its top bit is set.
    static func unsignedContent(_ value: UInt64) -> [UInt8] {
        var bytes: [UInt8] = []
        var rest = value
        repeat {
            bytes.append(UInt8(truncatingIfNeeded: rest))
            rest >>= 8
        } while rest != 0
        if (bytes.last ?? 0) & 0x80 != 0 { bytes.append(0) }
        return bytes.reversed()
    }

    static func oidContent(_ oid: OID) -> [UInt8] {
        let components = oid.components
        let x = UInt64(min(components.first ?? 0, 2))
        let secondLimit: UInt64 = x < 2 ? 39 : UInt64(UInt32.max)
        let y = min(UInt64(components.count > 1 ? components[1] : 0), secondLimit)
        var bytes: [UInt8] = []
        appendSubidentifier(x * 40 + y, to: &bytes)
        for component in components.dropFirst(2) { appendSubidentifier(UInt64(component), to: &bytes) }
        return bytes
    }

    private static func appendSubidentifier(_ value: UInt64, to bytes: inout [UInt8]) {
        var groups: [UInt8] = [UInt8(value & 0x7F)]
        var rest = value >> 7
        while rest > 0 {
            groups.append(UInt8(rest & 0x7F) | 0x80)
            rest >>= 7
        }
        bytes += groups.reversed()
    }
}
