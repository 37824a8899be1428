/// A strict, bounded reader of the BER subset SNMP uses (X.690 definite-length encoding).
///
/// Every malformed input is a thrown ``SNMPError`` naming the byte offset, never a trap:
/// - only single-byte tags; only definite lengths, in the short form or 1–4 length bytes;
/// - a length never beyond the bytes remaining in the enclosing element;
/// - constructed elements nested at most ``maxDepth`` deep;
/// - INTEGER within 32 bits signed, Counter32/Gauge32/TimeTicks within 32 bits unsigned,
///   Counter64 within 64 bits (a leading zero byte allowed for the sign);
/// - OBJECT IDENTIFIER of at most ``OID/maxComponents`` sub-identifiers, each within 32 bits
///   and minimally encoded.
///
/// A reader covers one element's content (or the whole input); `nested(_:)` opens a
/// constructed element as a reader of its own, one level deeper.
package struct BERReader {
    /// The deepest nesting of constructed elements read (an SNMP message needs 4).
    package static let maxDepth = 16

    private let bytes: [UInt8]
    /// The offset of the next element.
    package private(set) var position: Int
    private let end: Int
    private let depth: Int

    /// A reader of all of `bytes`, at depth 0.
    package init(_ bytes: [UInt8]) {
        self.init(bytes, from: 0, to: bytes.count, depth: 0)
    }

    private init(_ bytes: [UInt8], from start: Int, to end: Int, depth: Int) {
        self.bytes = bytes
        self.position = start
        self.end = end
        self.depth = depth
    }

    /// Whether every byte of this reader's span was read.
    package var isAtEnd: Bool { position >= end }

    /// Throws ``SNMPError/trailingBytes(offset:)`` unless every byte was read.
    package func finish() throws(SNMPError) {
        guard isAtEnd else { throw .trailingBytes(offset: position) }
    }

    /// The tag of the next element, not consumed.
    package func peekTag() throws(SNMPError) -> UInt8 {
        guard position < end else { throw .truncated(offset: position, needed: 1) }
        return bytes[position]
    }

    /// Reads the next element's tag and length: its tag and the span of its content.
    package mutating func readHeader() throws(SNMPError) -> (tag: UInt8, content: Range<Int>) {
        let start = position
        guard position < end else { throw .truncated(offset: position, needed: 1) }
        let tag = bytes[position]
        guard tag & 0x1F != 0x1F else { throw .unsupportedTag(offset: start, tag: tag) }
        guard position + 1 < end else { throw .truncated(offset: position + 1, needed: 1) }
        let first = bytes[position + 1]
        position += 2
        var length = 0
        if first < 0x80 {
            length = Int(first)
        } else {
            let count = Int(first & 0x7F)
            guard count >= 1, count <= 4 else { throw .unsupportedLength(offset: start + 1) }
            guard end - position >= count else { throw .truncated(offset: position, needed: count - (end - position)) }
            for _ in 0..<count {
                length = length << 8 | Int(bytes[position])
                position += 1
            }
        }
        guard end - position >= length else { throw .truncated(offset: position, needed: length - (end - position)) }
        let content = position..<(position + length)
        position += length
        return (tag, content)
    }

    /// Reads an element that must have `tag`; returns its content span.
    package mutating func readElement(tag expected: UInt8, named name: String) throws(SNMPError) -> Range<Int> {
        let start = position
        let (tag, content) = try readHeader()
        guard tag == expected else { throw .unexpectedTag(offset: start, expected: name, found: tag) }
        return content
    }

    /// Opens a constructed element of `tag` (a SEQUENCE or a PDU) as a reader of its content.
    package mutating func nested(tag: UInt8, named name: String) throws(SNMPError) -> BERReader {
        let start = position
        let content = try readElement(tag: tag, named: name)
        return try child(content, at: start)
    }

    /// Opens the next constructed element, whatever its tag; returns the tag and its reader.
    package mutating func nestedAny() throws(SNMPError) -> (tag: UInt8, reader: BERReader) {
        let start = position
        let (tag, content) = try readHeader()
        guard BERTag.isConstructed(tag) else { throw .unexpectedTag(offset: start, expected: "a constructed element", found: tag) }
        return (tag, try child(content, at: start))
    }

    private func child(_ content: Range<Int>, at start: Int) throws(SNMPError) -> BERReader {
        guard depth < Self.maxDepth else { throw .tooDeep(offset: start) }
        return BERReader(bytes, from: content.lowerBound, to: content.upperBound, depth: depth + 1)
    }

    /// Reads and checks the next element and everything inside it (constructed elements
    /// recursively, within ``maxDepth``), without interpreting primitive contents.
    package mutating func skipElement() throws(SNMPError) {
        let start = position
        let (tag, content) = try readHeader()
        guard BERTag.isConstructed(tag) else { return }
        var inner = try child(content, at: start)
        while !inner.isAtEnd { try inner.skipElement() }
    }

    /// Reads an INTEGER within 32 bits.
    package mutating func readInteger() throws(SNMPError) -> Int32 {
        let start = position
        let content = try readElement(tag: BERTag.integer, named: "INTEGER")
        guard let value = Int32(exactly: try signed(content, at: start, type: "INTEGER")) else {
            throw .badInteger(offset: start, type: "INTEGER")
        }
        return value
    }

    /// Reads an OCTET STRING.
    package mutating func readOctetString() throws(SNMPError) -> [UInt8] {
        Array(bytes[try readElement(tag: BERTag.octetString, named: "OCTET STRING")])
    }

    /// Reads an OBJECT IDENTIFIER.
    package mutating func readOID() throws(SNMPError) -> OID {
        let start = position
        return try oid(try readElement(tag: BERTag.objectIdentifier, named: "OBJECT IDENTIFIER"), at: start)
    }

    /// Reads a variable binding's value: any SNMP type or exception.
    package mutating func readValue() throws(SNMPError) -> SNMPValue {
        let start = position
        let (tag, content) = try readHeader()
        switch tag {
        case BERTag.integer:
            guard let value = Int32(exactly: try signed(content, at: start, type: "INTEGER")) else {
                throw .badInteger(offset: start, type: "INTEGER")
            }
            return .integer(value)
        case BERTag.octetString: return .octetString(Array(bytes[content]))
        case BERTag.null:
            try empty(content, at: start, type: "NULL")
            return .null
        case BERTag.objectIdentifier: return .objectIdentifier(try oid(content, at: start))
        case BERTag.ipAddress:
            guard content.count == 4 else { throw .badLength(offset: start, type: "IpAddress", length: content.count) }
            let at = content.lowerBound
            return .ipAddress(bytes[at], bytes[at + 1], bytes[at + 2], bytes[at + 3])
        case BERTag.counter32: return .counter32(try unsigned32(content, at: start, type: "Counter32"))
        case BERTag.gauge32: return .gauge32(try unsigned32(content, at: start, type: "Gauge32"))
        case BERTag.timeTicks: return .timeTicks(try unsigned32(content, at: start, type: "TimeTicks"))
        case BERTag.opaque: return .opaque(Array(bytes[content]))
        case BERTag.counter64: return .counter64(try unsigned(content, at: start, type: "Counter64", bytes: 8))
        case BERTag.noSuchObject:
            try empty(content, at: start, type: "noSuchObject")
            return .noSuchObject
        case BERTag.noSuchInstance:
            try empty(content, at: start, type: "noSuchInstance")
            return .noSuchInstance
        case BERTag.endOfMibView:
            try empty(content, at: start, type: "endOfMibView")
            return .endOfMibView
        default:
            throw .unexpectedTag(offset: start, expected: "a value", found: tag)
        }
    }

    // MARK: - Contents

    private func empty(_ content: Range<Int>, at start: Int, type: String) throws(SNMPError) {
        guard content.isEmpty else { throw .badLength(offset: start, type: type, length: content.count) }
    }

    /// A two's complement integer of 1–8 content bytes.
    private func signed(_ content: Range<Int>, at start: Int, type: String) throws(SNMPError) -> Int64 {
        guard !content.isEmpty, content.count <= 8 else { throw .badInteger(offset: start, type: type) }
        var value: Int64 = bytes[content.lowerBound] & 0x80 != 0 ? -1 : 0
        for index in content { value = value << 8 | Int64(bytes[index]) }
        return value
    }

    /// A non-negative integer of at most `bytes` value bytes (plus a leading zero byte).
    private func unsigned(_ content: Range<Int>, at start: Int, type: String, bytes width: Int) throws(SNMPError) -> UInt64 {
        guard !content.isEmpty, bytes[content.lowerBound] & 0x80 == 0 else { throw .badInteger(offset: start, type: type) }
        var digits = content
        if digits.count > 1, bytes[digits.lowerBound] == 0 { digits = digits.dropFirst() }
        guard digits.count <= width else { throw .badInteger(offset: start, type: type) }
        var value: UInt64 = 0
        for index in digits { value = value << 8 | UInt64(bytes[index]) }
        return value
    }

    private func unsigned32(_ content: Range<Int>, at start: Int, type: String) throws(SNMPError) -> UInt32 {
        UInt32(try unsigned(content, at: start, type: type, bytes: 4))
    }

    private func oid(_ content: Range<Int>, at start: Int) throws(SNMPError) -> OID {
        guard !content.isEmpty else { throw .badObjectIdentifier(offset: start, reason: "empty") }
        var components: [UInt32] = []
        var value: UInt64 = 0
        var inSubidentifier = false
        for index in content {
            let byte = bytes[index]
            if !inSubidentifier, byte == 0x80 {
                throw .badObjectIdentifier(offset: start, reason: "sub-identifier with a leading zero group")
            }
            value = value << 7 | UInt64(byte & 0x7F)
            // The first sub-identifier holds the first two arcs (40 × X + Y, X ≤ 2).
            let limit: UInt64 = components.isEmpty ? UInt64(UInt32.max) + 80 : UInt64(UInt32.max)
            guard value <= limit else { throw .badObjectIdentifier(offset: start, reason: "sub-identifier beyond 32 bits") }
            if byte & 0x80 != 0 {
                inSubidentifier = true
                continue
            }
            inSubidentifier = false
            if components.isEmpty {
                let first: UInt64 = value < 80 ? value / 40 : 2
                components.append(UInt32(first))
                components.append(UInt32(value - first * 40))
            } else {
                components.append(UInt32(value))
            }
            guard components.count <= OID.maxComponents else {
                throw .badObjectIdentifier(offset: start, reason: "more than \(OID.maxComponents) sub-identifiers")
            }
            value = 0
        }
        guard !inSubidentifier else { throw .badObjectIdentifier(offset: start, reason: "ends inside a sub-identifier") }
        return OID(components)
    }
}
