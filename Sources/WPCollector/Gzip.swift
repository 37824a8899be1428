import WPCZlib

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
        // A window no larger than the input (2^9 to 2^15 bytes) and a smaller hash table for
        // small inputs: the per-scrape member (a few KiB) then sets up kilobytes of zlib state
        // instead of a quarter megabyte, with the same output. windowBits + 16 selects the
        // gzip wrapper.
        var windowBits: Int32 = 9
        while windowBits < 15, 1 << windowBits < input.count { windowBits += 1 }
        let memoryLevel: Int32 = input.count < 64 * 1024 ? 6 : 8
        let status = deflateInit2_(&stream, level, Z_DEFLATED, windowBits + 16, memoryLevel, Z_DEFAULT_STRATEGY,
                                   zlibVersion(), Int32(MemoryLayout<z_stream>.size))
        guard status == Z_OK else { return [] }
        defer { deflateEnd(&stream) }
        let chunk = min(64 * 1024, input.count + 1024)
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
