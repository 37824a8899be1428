#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The read and write loops over a file descriptor, written once for every module (the log
/// sinks, the state file, configuration files, `/proc`): retried on `EINTR` and short counts,
/// failures as `errno`.
package enum POSIXFile {
    /// What ``read(_:limit:)`` found.
    package enum ReadOutcome: Equatable {
        /// Everything up to the end of the file, within the limit.
        case bytes([UInt8])
        /// The first `limit` bytes; the file goes on (at least one more byte was there).
        case truncated([UInt8])
        /// `read(2)` failed with this `errno`.
        case failed(Int32)
    }

    /// Writes all of `bytes` to `fd`, retrying on `EINTR` and partial writes (a record up to
    /// the pipe buffer's size goes out in one `write(2)`).
    ///
    /// - Returns: `nil`, or the `errno` of the failing write (`EIO` when it wrote nothing).
    package static func writeAll(_ fd: Int32, _ bytes: [UInt8]) -> Int32? {
        bytes.withUnsafeBytes { raw -> Int32? in
            guard let base = raw.baseAddress else { return nil }
            var offset = 0
            while offset < raw.count {
                let written = write(fd, base + offset, raw.count - offset)
                if written < 0 {
                    if errno == EINTR { continue }
                    return errno
                }
                if written == 0 { return EIO }
                offset += written
            }
            return nil
        }
    }

    /// Reads `fd` to its end, 64 KiB at a time, keeping at most `limit` bytes: a longer file
    /// costs `limit` + 1 bytes of reading (the one more says it is longer), never its size.
    package static func read(_ fd: Int32, limit: Int) -> ReadOutcome {
        let limit = max(limit, 0)
        var result: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let wanted = min(buffer.count, limit - result.count + 1)
            let count = buffer.withUnsafeMutableBytes { Self.readCall(fd, $0.baseAddress, wanted) }
            if count < 0 {
                if errno == EINTR { continue }
                return .failed(errno)
            }
            if count == 0 { return .bytes(result) }
            result.append(contentsOf: buffer[0..<count])
            if result.count > limit {
                result.removeLast(result.count - limit)
                return .truncated(result)
            }
        }
    }

    private static func readCall(_ fd: Int32, _ buffer: UnsafeMutableRawPointer?, _ count: Int) -> Int {
        #if canImport(Glibc)
        Glibc.read(fd, buffer, count)
        #elseif canImport(Musl)
        Musl.read(fd, buffer, count)
        #else
        Darwin.read(fd, buffer, count)
        #endif
    }
}
