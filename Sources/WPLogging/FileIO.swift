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
        if path.isEmpty || isDirectory(path) { return }
        var prefix = path.hasPrefix("/") ? "" : "."
        for component in path.split(separator: "/", omittingEmptySubsequences: true) {
            prefix += "/" + component
            guard !isDirectory(prefix), mkdir(prefix, 0o755) != 0 else { continue }
            var code = errno
            if code == EEXIST {
                if isDirectory(prefix) { continue } // created concurrently
                code = ENOTDIR // a file is in the way: say so rather than "File exists"
            }
            throw .cannotCreateDirectory(path: displayPath(prefix, original: path), errno: code, reason: systemErrorText(code))
        }
    }

    /// `./a/b` back to `a/b` for relative paths, so errors name the path as configured.
    private static func displayPath(_ built: String, original: String) -> String {
        original.hasPrefix("/") || !built.hasPrefix("./") ? built : String(built.dropFirst(2))
    }

    static func isDirectory(_ path: String) -> Bool {
        var info = stat()
        return stat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFDIR
    }

    static func exists(_ path: String) -> Bool {
        var info = stat()
        return lstat(path, &info) == 0
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
        guard let directory = opendir(path) else { return [] }
        defer { _ = closedir(directory) }
        var names: [String] = []
        while let entry = readdir(directory) {
            let name = withUnsafeBytes(of: &entry.pointee.d_name) { raw in
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
            if name != "." && name != ".." { names.append(name) }
        }
        return names
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
