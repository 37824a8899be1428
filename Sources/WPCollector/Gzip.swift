/// One-shot gzip compression of an in-memory buffer.
enum Gzip {
    /// Compresses `input` into one complete gzip member (RFC 1952) that more data can be
    /// appended to: its blocks end with a full flush, then comes a final empty block and the
    /// trailer (``DeflatedChunk/gzipMember(_:)``), so ``MetricsSnapshot/gzipBody(openMetrics:appending:)``
    /// can continue it with a per-scrape part as one member.
    ///
    /// Uses a fast compression level: the body is compressed once per cycle but must stay
    /// cheap for 10,000 devices. zlib failures here can only come from memory exhaustion; they
    /// yield an empty array, which callers treat as "no gzip body available".
    static func compress(_ input: [UInt8], level: Int32 = 1) -> [UInt8] {
        guard let chunk = deflate(input, level: level) else { return [] }
        return DeflatedChunk.gzipMember([chunk])
    }

    /// `input` as raw deflate blocks ending with a full flush (``DeflatedChunk``); `nil` if
    /// zlib could not allocate memory.
    static func deflate(_ input: [UInt8], level: Int32 = 1) -> DeflatedChunk? {
        ChunkDeflater(level: level, sizedFor: input.count).chunk(input[...])
    }
}
