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
            let count: Int
            switch readChunk(fd, into: &buffer, count: limit - result.count + 1) {
            case .read(let read): count = read
            case .failed(let code): return .failed(code)
            }
            if count == 0 { return .bytes(result) }
            result.append(contentsOf: buffer[0..<count])
            if result.count > limit {
                result.removeLast(result.count - limit)
                return .truncated(result)
            }
        }
    }

    /// Why ``readRegularFile(_:limit:)`` read nothing.
    package enum Refusal: Error, Equatable, Sendable, CustomStringConvertible {
        /// Nothing is there (`ENOENT`, `ENOTDIR`).
        case missing
        /// Something other than a regular file is there: a FIFO, a device, a socket, a directory.
        case notAFile(String)
        /// The file holds more than the limit.
        case tooLarge(limit: Int)
        /// `open(2)` or `read(2)` failed with this `errno`.
        case failed(Int32)

        package var description: String {
            switch self {
            case .missing: "no such file"
            case .notAFile(let kind): kind
            case .tooLarge(let limit): "it is larger than \(limit) bytes, the most such a file may hold"
            case .failed(let code): code == EACCES || code == EPERM ? "permission denied" : POSIXFile.message(code)
            }
        }
    }

    /// Reads the regular file at `path` (links followed), up to `limit` bytes, as every file a
    /// setting or the environment names is read: what is not a regular file is refused before it
    /// is opened (opening a device can have effects of its own), and the open itself does not
    /// block (`O_NONBLOCK`: a FIFO that replaced the file after the check is named by `fstat`,
    /// never waited on for a writer); a longer file is refused after `limit` + 1 bytes, or, with
    /// `prefix`, its first `limit` bytes are the answer.
    package static func readRegularFile(_ path: String, limit: Int, prefix: Bool = false) -> Result<[UInt8], Refusal> {
        var info = stat()
        if stat(path, &info) == 0, let kind = notAFile(UInt32(info.st_mode)) { return .failure(.notAFile(kind)) }
        let descriptor = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
        guard descriptor >= 0 else {
            let code = errno
            return .failure(code == ENOENT || code == ENOTDIR ? .missing : .failed(code))
        }
        defer { close(descriptor) }
        if fstat(descriptor, &info) == 0, let kind = notAFile(UInt32(info.st_mode)) { return .failure(.notAFile(kind)) }
        switch read(descriptor, limit: limit) {
        case .bytes(let bytes): return .success(bytes)
        case .truncated(let bytes): return prefix ? .success(bytes) : .failure(.tooLarge(limit: limit))
        case .failed(let code): return .failure(.failed(code))
        }
    }

    /// What a path that is not a regular file is, in words, e.g. `it is a named pipe (FIFO),
    /// not a file`; `nil` for a regular file.
    package static func notAFile(_ rawMode: UInt32) -> String? {
        let mode = mode_t(truncatingIfNeeded: rawMode)
        let kind: String
        switch mode & S_IFMT {
        case S_IFREG: return nil
        case S_IFDIR: return "it is a directory"
        case S_IFIFO: kind = "a named pipe (FIFO)"
        case S_IFCHR: kind = "a character device"
        case S_IFBLK: kind = "a block device"
        case S_IFSOCK: kind = "a socket"
        default: return "it is not a regular file"
        }
        return "it is \(kind), not a file"
    }

    /// `strerror(code)` in lower case.
    package static func message(_ code: Int32) -> String {
        systemErrorText(code).lowercased()
    }

    static func readCall(_ fd: Int32, _ buffer: UnsafeMutableRawPointer?, _ count: Int) -> Int {
        #if canImport(Glibc)
        Glibc.read(fd, buffer, count)
        #elseif canImport(Musl)
        Musl.read(fd, buffer, count)
        #else
        Darwin.read(fd, buffer, count)
        #endif
    }
}
