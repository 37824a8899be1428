import WPCSystem

/// gzip through the system zlib.
enum Gzip {
    /// Compresses `bytes` into a gzip member; `nil` only if zlib fails.
    static func compress(_ bytes: [UInt8], level: Int32 = 6) -> [UInt8]? {
        let capacity = cs_gzip_bound(bytes.count)
        var output = [UInt8](repeating: 0, count: capacity)
        let written = bytes.withUnsafeBufferPointer { input in
            output.withUnsafeMutableBufferPointer { out in
                cs_gzip(input.baseAddress, input.count, out.baseAddress, out.count, level)
            }
        }
        guard written >= 0 else { return nil }
        output.removeSubrange(written...)
        return output
    }

    /// Decompresses one gzip member of at most `limit` decoded bytes; `nil` when corrupt or larger.
    static func decompress(_ bytes: [UInt8], limit: Int = 64 << 20) -> [UInt8]? {
        var capacity = max(1024, bytes.count * 4)
        while true {
            var output = [UInt8](repeating: 0, count: min(capacity, limit))
            let written = bytes.withUnsafeBufferPointer { input in
                output.withUnsafeMutableBufferPointer { out in
                    cs_gunzip(input.baseAddress, input.count, out.baseAddress, out.count)
                }
            }
            if written >= 0 {
                output.removeSubrange(written...)
                return output
            }
            guard written == -2, capacity < limit else { return nil }
            capacity *= 4
        }
    }
}
