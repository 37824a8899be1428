import WPCZlib

/// A gzip member (RFC 1952) compressed as its input arrives: for files and bodies too large
/// to hold twice.
///
/// Feed the input with `compress(_:into:)` in pieces of any size, then call
/// ``finish(into:)`` once; each call appends the compressed bytes produced so far. Not
/// thread-safe: one encoder per stream.
package final class GzipEncoder {
    private let stream: DeflateStream
    private var finished = false

    /// - Parameter level: zlib's compression level, 1 (fastest) to 9 (smallest); 6 by default.
    /// - Throws: ``CompressionError`` when zlib cannot allocate its state.
    package init(level: Int32 = 6) throws(CompressionError) {
        // windowBits 15 + 16 selects the gzip wrapper.
        stream = try DeflateStream(level: level, windowBits: 15 + 16, memoryLevel: 8)
    }

    /// Compresses `input`, appending what zlib produces to `output` (often nothing: zlib
    /// keeps up to a block's worth of input back until more arrives or the member ends).
    package func compress(_ input: UnsafeRawBufferPointer, into output: inout [UInt8]) throws(CompressionError) {
        precondition(!finished, "GzipEncoder: compress after finish")
        try stream.run(input, flush: Z_NO_FLUSH, into: &output)
    }

    /// Compresses `input` (any contiguous bytes), appending what zlib produces to `output`.
    package func compress(_ input: [UInt8], into output: inout [UInt8]) throws(CompressionError) {
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
    package func finish(into output: inout [UInt8]) throws(CompressionError) {
        precondition(!finished, "GzipEncoder: finish called twice")
        finished = true
        try stream.run(UnsafeRawBufferPointer(start: nil, count: 0), flush: Z_FINISH, into: &output)
    }
}
