import WPCZlib

/// Decompresses exactly one gzip member, as clients that stop after the first member do (curl
/// 7.88's `--compressed`); `nil` when invalid or when anything follows the member.
func gunzip(_ input: [UInt8]) -> [UInt8]? {
    var stream = z_stream()
    // 15 + 32: detect the gzip header.
    guard inflateInit2_(&stream, 15 + 32, zlibVersion(), Int32(MemoryLayout<z_stream>.size)) == Z_OK else { return nil }
    defer { inflateEnd(&stream) }
    var output: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 64 * 1024)
    var input = input
    return input.withUnsafeMutableBufferPointer { source -> [UInt8]? in
        stream.next_in = source.baseAddress
        stream.avail_in = uInt(source.count)
        while true {
            let (status, produced) = buffer.withUnsafeMutableBufferPointer { out -> (Int32, Int) in
                stream.next_out = out.baseAddress
                stream.avail_out = uInt(out.count)
                let status = inflate(&stream, Z_NO_FLUSH)
                return (status, out.count - Int(stream.avail_out))
            }
            output.append(contentsOf: buffer[0..<produced])
            if status == Z_STREAM_END { return stream.avail_in == 0 ? output : nil }
            guard status == Z_OK else { return nil }
        }
    }
}
