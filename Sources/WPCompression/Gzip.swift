import WPCZlib

/// One-shot gzip (RFC 1952) of in-memory bytes.
package enum Gzip {
    /// `bytes` as one complete gzip member.
    ///
    /// - Parameters:
    ///   - bytes: the bytes to compress.
    ///   - level: zlib's compression level, 1 (fastest) to 9 (smallest); 6 by default.
    /// - Returns: the member, or `nil` if zlib could not allocate memory.
    package static func compress(_ bytes: [UInt8], level: Int32 = 6) -> [UInt8]? {
        guard let encoder = try? GzipEncoder(level: level) else { return nil }
        var output: [UInt8] = []
        output.reserveCapacity(Int(compressBound(uLong(bytes.count))) + 18)
        do {
            try encoder.compress(bytes, into: &output)
            try encoder.finish(into: &output)
        } catch {
            return nil
        }
        return output
    }

    /// Decodes exactly one gzip member.
    ///
    /// - Parameters:
    ///   - bytes: a gzip member and nothing after it.
    ///   - limit: the most decoded bytes accepted (64 MiB by default): a small input that
    ///     expands beyond it is refused without decoding the rest.
    /// - Returns: the decoded bytes, or `nil` when the input is not a gzip member, is cut short,
    ///   fails its CRC-32 or length check, has bytes after the member, or decodes to more than
    ///   `limit` bytes.
    package static func decompress(_ bytes: [UInt8], limit: Int = 64 << 20) -> [UInt8]? {
        let stream = UnsafeMutablePointer<z_stream>.allocate(capacity: 1)
        stream.initialize(to: z_stream())
        defer {
            stream.deinitialize(count: 1)
            stream.deallocate()
        }
        // windowBits 15 + 16: a gzip wrapper only.
        guard inflateInit2_(stream, 15 + 16, zlibVersion(), Int32(MemoryLayout<z_stream>.size)) == Z_OK else { return nil }
        defer { inflateEnd(stream) }
        var output: [UInt8] = []
        var scratch = [UInt8](repeating: 0, count: 32 * 1024)
        return bytes.withUnsafeBufferPointer { input -> [UInt8]? in
            stream.pointee.next_in = UnsafeMutablePointer(mutating: input.baseAddress)
            stream.pointee.avail_in = uInt(input.count)
            while true {
                let (status, produced) = scratch.withUnsafeMutableBufferPointer { out -> (Int32, Int) in
                    stream.pointee.next_out = out.baseAddress
                    stream.pointee.avail_out = uInt(out.count)
                    let status = inflate(stream, Z_NO_FLUSH)
                    return (status, out.count - Int(stream.pointee.avail_out))
                }
                guard output.count + produced <= limit else { return nil }
                output.append(contentsOf: scratch[0..<produced])
                switch status {
                case Z_STREAM_END: return stream.pointee.avail_in == 0 ? output : nil
                case Z_OK: continue
                // No progress possible: the input ended inside the member.
                default: return nil
                }
            }
        }
    }
}
