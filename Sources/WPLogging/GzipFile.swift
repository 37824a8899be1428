import WPPOSIX
import WPRuntime
import WPCompression
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Streams a file into a gzip file (RFC 1952), 64 KiB at a time.
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

        let encoder: GzipEncoder
        do {
            encoder = try GzipEncoder(level: 6)
        } catch {
            throw Failure(description: error.description)
        }
        let chunk = 64 * 1024
        var inBuffer = [UInt8](repeating: 0, count: chunk)
        var compressed: [UInt8] = []
        compressed.reserveCapacity(chunk)
        while true {
            let count: Int
            switch POSIXFile.readChunk(input, into: &inBuffer) {
            case .read(let read): count = read
            case .failed(let code): throw failure("read \(source)", code)
            }
            compressed.removeAll(keepingCapacity: true)
            do {
                if count == 0 {
                    try encoder.finish(into: &compressed)
                } else {
                    try encoder.compress(Array(inBuffer[0..<count]), into: &compressed)
                }
            } catch {
                throw Failure(description: error.description)
            }
            if !compressed.isEmpty, let code = POSIXFile.writeAll(output, compressed) {
                throw failure("write \(destination)", code)
            }
            if count == 0 { break }
        }
        if let code = POSIXFile.sync(output) { throw failure("fsync \(destination)", code) }
    }

    private static func failure(_ operation: String, _ code: Int32) -> Failure {
        Failure(description: "\(operation): \(systemErrorText(code)) (errno \(code))")
    }
}
