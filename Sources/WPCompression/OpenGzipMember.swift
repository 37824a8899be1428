/// A gzip member kept open: its bytes up to the final empty block, and its CRC-32 and length,
/// so more data can follow as blocks of the same member.
///
/// Made from a member of the shape ``DeflatedChunk/gzipMember(_:)`` makes (a 10-byte header
/// without flags, blocks that end with a full flush, a final empty block, the trailer). Any
/// other member is kept whole and cannot be continued: data appended to it becomes a second
/// member.
package struct OpenGzipMember: Sendable {
    /// The header and the blocks (all of a member of another shape).
    package let head: [UInt8]
    /// CRC-32 and length of the member's data; `nil` for a member that cannot be continued.
    package let trailer: (crc: UInt32, length: UInt32)?

    /// The final fixed-Huffman block holding only its end-of-block code, with which
    /// ``DeflatedChunk/gzipMember(_:)`` ends its members.
    static let finalBlock: [UInt8] = [0x03, 0x00]

    /// - Parameter member: a gzip member (an empty array: nothing to continue).
    package init(_ member: [UInt8]) {
        let end = member.count - 10
        // No flags (so the header is 10 bytes), the final empty block, and before it either
        // the header or the empty stored block of a full flush (00 00 FF FF).
        guard member.count >= 20, member[0] == 0x1F, member[1] == 0x8B, member[3] == 0,
              member[end] == Self.finalBlock[0], member[end + 1] == Self.finalBlock[1],
              end == 10 || member[(end - 4)..<end].elementsEqual([0x00, 0x00, 0xFF, 0xFF]) else {
            head = member
            trailer = nil
            return
        }
        head = Array(member[..<end])
        trailer = (Self.littleEndian(member[(end + 2)...].prefix(4)), Self.littleEndian(member[(end + 6)...].prefix(4)))
    }

    /// The whole member again.
    package var member: [UInt8] {
        guard let trailer else { return head }
        return head + Self.finalBlock + Self.trailer(crc: trailer.crc, length: trailer.length)
    }

    /// What follows ``head`` to make one member of the member's data and `tail`, compressed at
    /// the fastest level; a second member of `tail` after a member that cannot be continued.
    ///
    /// When zlib cannot allocate memory, the result ends the member without `tail` (or is
    /// empty after a member that cannot be continued).
    package func continuation(appending tail: [UInt8]) -> [UInt8] {
        guard let trailer else { return DeflatedChunk.appendableGzipMember(tail) ?? [] }
        guard let chunk = ChunkDeflater(level: 1, sizedFor: tail.count).chunk(tail[...]) else {
            return Self.finalBlock + Self.trailer(crc: trailer.crc, length: trailer.length)
        }
        let crc = CRC32.combine(trailer.crc, chunk.crc, secondLength: chunk.length)
        return chunk.bytes + Self.finalBlock + Self.trailer(crc: crc, length: trailer.length &+ UInt32(truncatingIfNeeded: chunk.length))
    }

    private static func littleEndian(_ bytes: ArraySlice<UInt8>) -> UInt32 {
        bytes.reversed().reduce(0) { $0 << 8 | UInt32($1) }
    }

    /// A gzip trailer: CRC-32 and length (modulo 2^32), little-endian.
    static func trailer(crc: UInt32, length: UInt32) -> [UInt8] {
        (0..<4).map { UInt8(truncatingIfNeeded: crc >> ($0 * 8)) } + (0..<4).map { UInt8(truncatingIfNeeded: length >> ($0 * 8)) }
    }
}
