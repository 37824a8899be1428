import CZlib

/// One-shot gzip compression of an in-memory buffer, done once per collection cycle.
enum Gzip {
    /// Compresses `input` into one complete gzip member (RFC 1952).
    ///
    /// Uses a fast compression level: the body is compressed once per cycle but must stay
    /// cheap for 10,000 devices (metric text compresses about 14:1 even at level 1). The output
    /// grows in 64 KiB steps, so a snapshot holds only the compressed size. zlib failures here
    /// can only come from memory exhaustion; they yield an empty array, which callers treat as
    /// "no gzip body available".
    static func compress(_ input: [UInt8], level: Int32 = 1) -> [UInt8] {
        var stream = z_stream()
        // windowBits 15 + 16 selects the gzip wrapper.
        let status = deflateInit2_(&stream, level, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY,
                                   zlibVersion(), Int32(MemoryLayout<z_stream>.size))
        guard status == Z_OK else { return [] }
        defer { deflateEnd(&stream) }
        let chunk = 64 * 1024
        var output: [UInt8] = []
        output.reserveCapacity(input.count / 10 + 64)
        var scratch = [UInt8](repeating: 0, count: chunk)
        let finished = input.withUnsafeBufferPointer { source -> Bool in
            // zlib never writes through next_in; the cast only satisfies its non-const API.
            stream.next_in = UnsafeMutablePointer(mutating: source.baseAddress)
            stream.avail_in = uInt(source.count)
            while true {
                let (result, produced) = scratch.withUnsafeMutableBufferPointer { out -> (Int32, Int) in
                    stream.next_out = out.baseAddress
                    stream.avail_out = uInt(out.count)
                    let result = deflate(&stream, Z_FINISH)
                    return (result, out.count - Int(stream.avail_out))
                }
                output.append(contentsOf: scratch[0..<produced])
                if result == Z_STREAM_END { return true }
                if result != Z_OK && result != Z_BUF_ERROR { return false }
            }
        }
        return finished ? output : []
    }
}
