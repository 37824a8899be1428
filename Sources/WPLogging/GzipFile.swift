import WPCZlib
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Streams a file through zlib into a gzip file (RFC 1952), 64 KiB at a time.
enum GzipFile {
    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    /// Compresses `source` into `destination` (created or truncated, mode `mode`) and fsyncs it.
    /// The source is left in place; the caller removes it once the result is renamed into place.
    static func compress(_ source: String, to destination: String, mode: mode_t) throws(Failure) {
        let input = open(source, O_RDONLY | O_CLOEXEC)
        guard input >= 0 else { throw failure("open \(source)", errno) }
        defer { close(input) }
        let output = open(destination, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode)
        guard output >= 0 else { throw failure("create \(destination)", errno) }
        defer { close(output) }

        var stream = z_stream()
        // windowBits 15 + 16 selects the gzip wrapper.
        let initStatus = deflateInit2_(&stream, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 15 + 16, 8,
                                       Z_DEFAULT_STRATEGY, zlibVersion(), Int32(MemoryLayout<z_stream>.size))
        guard initStatus == Z_OK else { throw Failure(description: "zlib deflateInit2 failed (\(initStatus))") }
        defer { deflateEnd(&stream) }

        let chunk = 64 * 1024
        var inBuffer = [UInt8](repeating: 0, count: chunk)
        var outBuffer = [UInt8](repeating: 0, count: chunk)
        var finished = false
        while !finished {
            let count = inBuffer.withUnsafeMutableBytes { read(input, $0.baseAddress, chunk) }
            if count < 0 {
                if errno == EINTR { continue }
                throw failure("read \(source)", errno)
            }
            let flush = count == 0 ? Z_FINISH : Z_NO_FLUSH
            var status = Z_OK
            try inBuffer.withUnsafeMutableBufferPointer { (inPtr) throws(Failure) in
                stream.next_in = inPtr.baseAddress
                stream.avail_in = uInt(count)
                repeat {
                    let produced = outBuffer.withUnsafeMutableBufferPointer { outPtr -> Int in
                        stream.next_out = outPtr.baseAddress
                        stream.avail_out = uInt(chunk)
                        status = deflate(&stream, flush)
                        return chunk - Int(stream.avail_out)
                    }
                    guard status != Z_STREAM_ERROR else { throw Failure(description: "zlib deflate failed") }
                    if produced > 0, let code = FileIO.writeAll(output, Array(outBuffer[0..<produced])) {
                        throw failure("write \(destination)", code)
                    }
                } while stream.avail_out == 0
            }
            finished = status == Z_STREAM_END
            if count == 0 && !finished { throw Failure(description: "zlib did not finish the stream") }
        }
        if fsync(output) != 0 { throw failure("fsync \(destination)", errno) }
    }

    private static func failure(_ operation: String, _ code: Int32) -> Failure {
        Failure(description: "\(operation): \(FileIO.reason(code)) (errno \(code))")
    }
}
