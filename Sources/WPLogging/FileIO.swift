import WPPOSIX
import WPRuntime
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Thin wrappers over the POSIX calls the sinks use; errors carry `errno` and its text.
enum FileIO {
    /// Writes what `fd` takes now without waiting: chunks of at most `PIPE_BUF` bytes while
    /// `poll` says it is writable (a pipe then has room for such a chunk whole). Returns the
    /// bytes written; stops at the first chunk that would wait or fails.
    static func writeWithoutWaiting(_ fd: Int32, _ bytes: [UInt8]) -> Int {
        var written = 0
        while written < bytes.count {
            var descriptor = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
            guard poll(&descriptor, 1, 0) == 1, descriptor.revents & Int16(POLLOUT) != 0 else { break }
            let count = min(bytes.count - written, Int(PIPE_BUF))
            let result = bytes.withUnsafeBytes { write(fd, $0.baseAddress! + written, count) }
            guard result > 0 else { break }
            written += result
        }
        return written
    }

    /// Creates `path` and its missing parents (`mkdir -p`) with mode 0755.
    ///
    /// - Throws: ``LoggingError/cannotCreateDirectory(path:errno:reason:)`` naming the
    ///   directory that failed.
    static func makeDirectories(_ path: String) throws(LoggingError) {
        guard let (failed, code) = POSIXFile.makeDirectories(path) else { return }
        throw .cannotCreateDirectory(path: failed, errno: code, reason: systemErrorText(code))
    }

    /// Opens `path` for appending (creating it with `mode`), returning the descriptor and the
    /// current size.
    ///
    /// - Throws: ``LoggingError/cannotOpenFile(path:errno:reason:)``.
    static func openForAppend(_ path: String, mode: mode_t) throws(LoggingError) -> (fd: Int32, size: Int) {
        let fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, mode)
        if fd < 0 {
            let code = errno
            throw .cannotOpenFile(path: path, errno: code, reason: systemErrorText(code))
        }
        var info = stat()
        let size = fstat(fd, &info) == 0 ? Int(info.st_size) : 0
        return (fd, size)
    }

    /// The names in directory `path` (without `.` and `..`), in no particular order; empty
    /// when the directory cannot be read.
    static func directoryEntries(_ path: String) -> [String] {
        POSIXFile.entries(of: path) ?? []
    }

    /// Closes `fd`, ignoring errors (nothing useful can be done about them here).
    static func closeDescriptor(_ fd: Int32) {
        _ = close(fd)
    }

    /// The directory part of `path` (`.` when there is none).
    static func directory(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        if slash == path.startIndex { return "/" }
        return String(path[..<slash])
    }

    /// The file-name part of `path`.
    static func fileName(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return path }
        return String(path[path.index(after: slash)...])
    }
}
