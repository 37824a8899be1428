#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Names and directories, written once for the log sinks and the data directory.
extension POSIXFile {
    /// Whether anything is at `path` (a final symbolic link itself counts, even dangling).
    package static func exists(_ path: String) -> Bool {
        var info = stat()
        return lstat(path, &info) == 0
    }

    /// Whether `path` names a directory (links followed).
    package static func isDirectory(_ path: String) -> Bool {
        var info = stat()
        return stat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFDIR
    }

    /// The names in directory `path`, without `.` and `..`, in no particular order; `nil` when
    /// `opendir(3)` fails, `errno` saying why.
    package static func entries(of path: String) -> [String]? {
        guard let directory = opendir(path) else { return nil }
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

    /// The directory `path` is in, as `NSString.deletingLastPathComponent` gives it (doubled
    /// slashes made one, a slash at the end dropped): `"/var/lib/wp"` → `"/var/lib"`, `"wp"` →
    /// `""`, `"/wp"` → `"/"`, `"a//b/c"` → `"a/b"`. What the data directory's parent and the web
    /// configuration's relative files are found by.
    package static func parentDirectory(of path: String) -> String {
        var components = path.split(separator: "/", omittingEmptySubsequences: true)
        guard !components.isEmpty else { return path.hasPrefix("/") ? "/" : "" }
        components.removeLast()
        let parent = components.joined(separator: "/")
        return path.hasPrefix("/") ? "/" + parent : parent
    }

    /// Creates `path` and its missing parents (`mkdir -p`) with `mode` (less the umask).
    ///
    /// - Returns: `nil`, or the directory that could not be made (as `path` names it: `a/b`,
    ///   never `./a/b`) with its `errno` (`ENOTDIR` when a file is in the way, rather than
    ///   `EEXIST`).
    package static func makeDirectories(_ path: String, mode: UInt32 = 0o755) -> (path: String, errno: Int32)? {
        if path.isEmpty || isDirectory(path) { return nil }
        var prefix = path.hasPrefix("/") ? "" : "."
        for component in path.split(separator: "/", omittingEmptySubsequences: true) {
            prefix += "/" + component
            guard !isDirectory(prefix), mkdir(prefix, mode_t(mode)) != 0 else { continue }
            var code = errno
            if code == EEXIST {
                if isDirectory(prefix) { continue }  // made meanwhile by another
                code = ENOTDIR
            }
            return (path.hasPrefix("/") ? prefix : String(prefix.dropFirst(2)), code)
        }
        return nil
    }
}
