import WPCZlib

/// A gzip member (RFC 1952) compressed as its input arrives: for files and bodies too large
/// to hold twice.
///
/// Feed the input with ``compress(_:into:)`` in pieces of any size, then call
/// ``finish(into:)`` once; each call appends the compressed bytes produced so far. Not
/// thread-safe: one encoder per stream.
public final class GzipEncoder {
    private var stream = UnsafeMutablePointer<z_stream>.allocate(capacity: 1)
    private var scratch = [UInt8](repeating: 0, count: 32 * 1024)
    private var finished = false

    /// - Parameter level: zlib's compression level, 1 (fastest) to 9 (smallest); 6 by default.
    /// - Throws: ``CompressionError`` when zlib cannot allocate its state.
    public init(level: Int32 = 6) throws(CompressionError) {
        stream.initialize(to: z_stream())
        // windowBits 15 + 16 selects the gzip wrapper.
        let status = deflateInit2_(stream, level, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY, zlibVersion(),
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

    /// Compresses `input`, appending what zlib produces to `output` (often nothing: zlib
    /// keeps up to a block's worth of input back until more arrives or the member ends).
    public func compress(_ input: UnsafeRawBufferPointer, into output: inout [UInt8]) throws(CompressionError) {
        precondition(!finished, "GzipEncoder: compress after finish")
        try run(input, flush: Z_NO_FLUSH, into: &output)
    }

    /// Compresses `input` (any contiguous bytes), appending what zlib produces to `output`.
    public func compress(_ input: [UInt8], into output: inout [UInt8]) throws(CompressionError) {
        // withUnsafeBytes rethrows untyped errors: the failure comes back as a value.
        let failure = input.withUnsafeBytes { bytes -> CompressionError? in
            do throws(CompressionError) {
                try compress(bytes, into: &output)
                return nil
            } catch {
                return error
            }
        }
        if let failure { throw failure }
    }

    /// Ends the member: appends the remaining compressed bytes and the trailer (CRC-32 and
    /// length) to `output`. The encoder accepts no input afterwards.
    public func finish(into output: inout [UInt8]) throws(CompressionError) {
        precondition(!finished, "GzipEncoder: finish called twice")
        finished = true
        try run(UnsafeRawBufferPointer(start: nil, count: 0), flush: Z_FINISH, into: &output)
    }

    private func run(_ input: UnsafeRawBufferPointer, flush: Int32, into output: inout [UInt8]) throws(CompressionError) {
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
                // Room left in the scratch buffer means zlib consumed all input and wants no
                // more space; Z_FINISH goes on until Z_STREAM_END.
                if !full && flush != Z_FINISH { return }
                if !full && status == Z_BUF_ERROR { throw CompressionError(operation: "deflate", status: status) }
            default:
                throw CompressionError(operation: "deflate", status: status)
            }
        }
    }
}
