import WPCZlib

/// One zlib deflate stream and its output buffer: what ``GzipEncoder`` and ``ChunkDeflater``
/// run their input through. Not thread-safe.
final class DeflateStream {
    private let stream = UnsafeMutablePointer<z_stream>.allocate(capacity: 1)
    private var scratch = [UInt8](repeating: 0, count: 32 * 1024)

    /// - Parameters:
    ///   - windowBits: zlib's: negative for raw deflate, `15 + 16` for a gzip wrapper.
    /// - Throws: ``CompressionError`` when zlib cannot set the stream up.
    init(level: Int32, windowBits: Int32, memoryLevel: Int32) throws(CompressionError) {
        stream.initialize(to: z_stream())
        let status = deflateInit2_(stream, level, Z_DEFLATED, windowBits, memoryLevel, Z_DEFAULT_STRATEGY, zlibVersion(),
                                   Int32(MemoryLayout<z_stream>.size))
        guard status == Z_OK else {
            stream.deinitialize(count: 1)
            stream.deallocate()
            throw CompressionError(operation: "deflateInit2", status: status)
        }
    }

    deinit {
        deflateEnd(stream)
        stream.deinitialize(count: 1)
        stream.deallocate()
    }

    /// Deflates `input` with `flush` (`Z_NO_FLUSH`, `Z_FULL_FLUSH` or `Z_FINISH`), appending
    /// everything zlib produces to `output`: until the input is consumed, and for `Z_FINISH`
    /// until the stream ends.
    func run(_ input: UnsafeRawBufferPointer, flush: Int32, into output: inout [UInt8]) throws(CompressionError) {
        // zlib never writes through next_in; the cast only satisfies its non-const API.
        stream.pointee.next_in = UnsafeMutablePointer(mutating: input.assumingMemoryBound(to: UInt8.self).baseAddress)
        stream.pointee.avail_in = uInt(input.count)
        while true {
            let (status, produced, full) = scratch.withUnsafeMutableBufferPointer { out -> (Int32, Int, Bool) in
                stream.pointee.next_out = out.baseAddress
                stream.pointee.avail_out = uInt(out.count)
                let status = deflate(stream, flush)
                return (status, out.count - Int(stream.pointee.avail_out), stream.pointee.avail_out == 0)
            }
            output.append(contentsOf: scratch[0..<produced])
            switch status {
            case Z_STREAM_END: return
            case Z_OK, Z_BUF_ERROR:
                // Room left in the buffer means zlib consumed all input and wants no more
                // space; Z_FINISH goes on until Z_STREAM_END.
                if !full && flush != Z_FINISH { return }
                if !full && status == Z_BUF_ERROR { throw CompressionError(operation: "deflate", status: status) }
            default:
                throw CompressionError(operation: "deflate", status: status)
            }
        }
    }
}
