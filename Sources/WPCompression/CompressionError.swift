/// zlib refused to work: it could not allocate its state, or it found its stream inconsistent.
///
/// With well-formed input (every compression path, and decompression of bytes this library
/// made) only memory exhaustion produces it.
package struct CompressionError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The zlib call that failed (`deflateInit2`, `deflate`, …).
    package let operation: String
    /// zlib's status code (`Z_MEM_ERROR` is -4, `Z_STREAM_ERROR` -2, `Z_DATA_ERROR` -3).
    package let status: Int32

    package init(operation: String, status: Int32) {
        self.operation = operation
        self.status = status
    }

    package var description: String { "zlib \(operation) failed (status \(status))" }
}
