import CZlib

/// One-shot gzip compression of an in-memory buffer, done once per collection cycle.
enum Gzip {
    /// Compresses `input` into one complete gzip member (RFC 1952).
    ///
    /// Uses a fast compression level: the body is compressed once per cycle but must stay
    /// cheap for 10,000 devices. zlib failures here can only come from memory exhaustion;
    /// they yield an empty array, which callers treat as "no gzip body available".
    static func compress(_ input: [UInt8], level: Int32 = 1) -> [UInt8] {
        var stream = z_stream()
        // windowBits 15 + 16 selects the gzip wrapper.
        let status = deflateInit2_(&stream, level, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY,
                                   zlibVersion(), Int32(MemoryLayout<z_stream>.size))
        guard status == Z_OK else { return [] }
        defer { deflateEnd(&stream) }
        let bound = Int(deflateBound(&stream, uLong(input.count)))
        var output = [UInt8](repeating: 0, count: bound)
        var input = input
        let produced: Int? = input.withUnsafeMutableBufferPointer { source in
            output.withUnsafeMutableBufferPointer { destination in
                stream.next_in = source.baseAddress
                stream.avail_in = uInt(source.count)
                stream.next_out = destination.baseAddress
                stream.avail_out = uInt(destination.count)
                guard deflate(&stream, Z_FINISH) == Z_STREAM_END else { return nil }
                return destination.count - Int(stream.avail_out)
            }
        }
        guard let produced else { return [] }
        output.removeSubrange(produced...)
        return output
    }
}
