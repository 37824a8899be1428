import WPCZlib

/// Bytes compressed as raw deflate blocks that end on a byte boundary and refer to nothing
/// before them, with the CRC-32 and length of the input.
///
/// Chunks made by ``ChunkDeflater`` can be concatenated in any order into one deflate stream:
/// ``gzipMember(_:)`` wraps such a sequence into a complete gzip member (RFC 1952) with no
/// compression work, only CRC arithmetic. The merged exposition of a multi-server exporter is
/// assembled this way from each server's per-family chunks.
package struct DeflatedChunk: Sendable, Equatable {
    /// Raw deflate blocks ending with a full flush (an empty stored block).
    package var bytes: [UInt8]
    /// CRC-32 of the uncompressed input.
    package var crc: UInt32
    /// Length of the uncompressed input.
    package var length: Int

    /// The chunk of no input: no bytes.
    package static let empty = DeflatedChunk(bytes: [], crc: 0, length: 0)

    package init(bytes: [UInt8], crc: UInt32, length: Int) {
        self.bytes = bytes
        self.crc = crc
        self.length = length
    }

    /// One gzip member holding `chunks` in order: a header, their blocks, a final empty block,
    /// the combined CRC-32 and the total length.
    ///
    /// - Parameter chunks: chunks from ``ChunkDeflater``, in output order.
    /// - Returns: the member; decompresses to the chunks' inputs concatenated.
    package static func gzipMember(_ chunks: [DeflatedChunk]) -> [UInt8] {
        var size = 10 + 2 + 8
        for chunk in chunks { size += chunk.bytes.count }
        var output: [UInt8] = []
        output.reserveCapacity(size)
        // ID1 ID2, deflate, no flags, no time, no extra flags, OS unknown.
        output.append(contentsOf: [0x1F, 0x8B, 0x08, 0x00, 0, 0, 0, 0, 0x00, 0xFF])
        var crc: UInt32 = 0
        var length = 0
        for chunk in chunks where chunk.length > 0 {
            output.append(contentsOf: chunk.bytes)
            crc = CRC32.combine(crc, chunk.crc, secondLength: chunk.length)
            length &+= chunk.length
        }
        output.append(contentsOf: OpenGzipMember.finalBlock)
        output.append(contentsOf: OpenGzipMember.trailer(crc: crc, length: UInt32(truncatingIfNeeded: length)))
        return output
    }

    /// `input` as one complete gzip member that more data can be appended to: its blocks end
    /// with a full flush, then come a final empty block and the trailer (the shape
    /// ``gzipMember(_:)`` makes and ``OpenGzipMember`` continues).
    ///
    /// - Parameters:
    ///   - input: the bytes.
    ///   - level: the compression level (fast by default: the exporter compresses its body once
    ///     per collection, and it must stay cheap for 10,000 devices).
    /// - Returns: the member, or `nil` if zlib could not allocate memory.
    package static func appendableGzipMember(_ input: [UInt8], level: Int32 = 1) -> [UInt8]? {
        guard let chunk = ChunkDeflater(level: level, sizedFor: input.count).chunk(input[...]) else { return nil }
        return gzipMember([chunk])
    }
}

/// One raw deflate stream cut into independent ``DeflatedChunk``s by full flushes.
///
/// Not thread-safe: one deflater per rendering. zlib failures (memory exhaustion only) make
/// ``chunk(_:)`` return `nil`; callers then fall back to uncompressed bodies.
package final class ChunkDeflater {
    /// `nil` once zlib failed (or could not start): every chunk is `nil` then.
    private var stream: DeflateStream?

    /// - Parameters:
    ///   - level: the compression level (fast by default: metric text compresses about 14:1
    ///     even at level 1).
    ///   - expected: the size of the largest input expected: a smaller input gets a window no
    ///     larger than itself (2^9 to 2^15 bytes) and a smaller hash table, so compressing a few
    ///     KiB sets up kilobytes of zlib state instead of a quarter megabyte, with the same output.
    package init(level: Int32 = 1, sizedFor expected: Int = .max) {
        var windowBits: Int32 = 9
        while windowBits < 15, 1 << windowBits < expected { windowBits += 1 }
        // Negative window bits: raw deflate, no zlib or gzip wrapper.
        stream = try? DeflateStream(level: level, windowBits: -windowBits, memoryLevel: expected < 64 * 1024 ? 6 : 8)
    }

    /// Compresses `input` into blocks that end with a full flush, so they decode on their own
    /// after any other chunk's blocks.
    ///
    /// - Parameter input: the bytes.
    /// - Returns: the chunk, ``DeflatedChunk/empty`` for no input, `nil` if zlib failed.
    package func chunk(_ input: ArraySlice<UInt8>) -> DeflatedChunk? {
        guard let stream else { return nil }
        guard !input.isEmpty else { return .empty }
        var output: [UInt8] = []
        output.reserveCapacity(input.count / 8 + 64)
        let failed = input.withUnsafeBytes { source -> Bool in
            do throws(CompressionError) {
                try stream.run(source, flush: Z_FULL_FLUSH, into: &output)
                return false
            } catch {
                return true
            }
        }
        guard !failed else {
            self.stream = nil
            return nil
        }
        let crc = input.withUnsafeBufferPointer { CRC32.update(0, $0) }
        return DeflatedChunk(bytes: output, crc: crc, length: input.count)
    }
}
