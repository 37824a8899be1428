import WPPOSIX
import WPRuntime
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Thin wrappers over the POSIX calls the store needs, capturing `errno` where it happens.
enum FileSystem {
    /// The outcome of reading a whole file.
    enum ReadResult {
        case missing
        case bytes([UInt8])
        case failed(StorageError)
    }

    /// The most bytes the energy state file (and its backup) may hold (256 MiB). A device takes
    /// about 40 bytes plus its id, and up to about 1 KiB with an outage ledger and another
    /// component's record (a name and a description) of the longest kinds: 256 MiB is over 250,000 such devices (the state of 25 servers at the
    /// default `winpower.max_devices`), far past any real site.
    static let stateFileLimit = 256 << 20
    /// The most bytes a ``DataDirectoryFile`` and a legacy per-device energy file may hold
    /// (64 KiB): each holds a few short lines.
    static let smallFileLimit = 64 << 10

    /// Reads the file at `path`, 64 KiB at a time, up to `limit` bytes: a larger file is refused
    /// (``StorageError/tooLarge(path:limit:)``) once `limit` + 1 bytes were read, never read
    /// whole. A symbolic link there is refused (``StorageError/symbolicLink(path:)``) unless
    /// `followingLinks` (files outside the data directory, such as the Go exporter's, named by
    /// the user); what is not a regular file (a FIFO, a device) is refused without blocking.
    static func readFile(_ path: String, limit: Int, followingLinks: Bool = false) -> ReadResult {
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | (followingLinks ? 0 : O_NOFOLLOW))
        if fd < 0 {
            let code = errno
            return code == ENOENT ? .missing : .failed(refusal("open", path, errno: code))
        }
        defer { close(fd) }
        var info = stat()
        if fstat(fd, &info) == 0, info.st_mode & S_IFMT != S_IFREG {
            let kind = info.st_mode & S_IFMT == S_IFIFO ? "is a FIFO" : info.st_mode & S_IFMT == S_IFDIR ? "is a directory" : "is a device or socket"
            return .failed(.system(operation: "open", path: path, errno: EINVAL, message: "\(kind), not a regular file"))
        }
        switch POSIXFile.read(fd, limit: limit) {
        case .bytes(let bytes): return .bytes(bytes)
        case .truncated: return .failed(.tooLarge(path: path, limit: limit))
        case .failed(let code): return .failed(.posix("read", path, errno: code))
        }
    }

    /// Writes `bytes` to a new file at `path` (truncating any leftover), with exactly `mode`,
    /// and flushes it to stable storage with `fsync`.
    ///
    /// A symbolic link at `path` is refused and left alone (``StorageError/symbolicLink(path:)``):
    /// opening it would truncate, fill and re-mode whatever file it points at.
    ///
    /// - Returns: the identity of the file written.
    @discardableResult
    static func writeAndSync(_ path: String, _ bytes: [UInt8], mode: UInt16) throws(StorageError) -> Identity {
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, mode_t(mode))
        guard fd >= 0 else { throw refusal("create", path) }
        defer { close(fd) }
        // Apply the configured mode exactly, whatever the umask.
        guard fchmod(fd, mode_t(mode)) == 0 else { throw .posix("chmod", path) }
        if let code = POSIXFile.writeAll(fd, bytes) { throw .posix("write", path, errno: code) }
        if let code = POSIXFile.sync(fd) { throw .posix("fsync", path, errno: code) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw .posix("stat", path) }
        return Identity(info)
    }

    /// The error of an `open` with `O_NOFOLLOW` that failed: ``StorageError/symbolicLink(path:)``
    /// when `path` is a symbolic link (`ELOOP`), else the system error.
    static func refusal(_ operation: String, _ path: String, errno code: Int32 = errno) -> StorageError {
        if code == ELOOP || isSymbolicLink(path) { return .symbolicLink(path: path) }
        return .posix(operation, path, errno: code)
    }

    /// Whether `path` itself is a symbolic link (not followed).
    static func isSymbolicLink(_ path: String) -> Bool {
        var info = stat()
        return lstat(path, &info) == 0 && info.st_mode & S_IFMT == S_IFLNK
    }

    /// Flushes directory entries (renames, links) of `path` to stable storage.
    static func syncDirectory(_ path: String) throws(StorageError) {
        if let failure = POSIXFile.syncDirectory(path) { throw .posix(failure.operation, path, errno: failure.errno) }
    }

    static func rename(_ from: String, _ to: String) throws(StorageError) {
        if let code = POSIXFile.rename(from, to: to) { throw .posix("rename to \(to)", from, errno: code) }
    }

    /// The system calls a save makes that a test needs to replace (the file-system seam):
    /// `link(2)`, which vfat, exFAT, SMB and some FUSE file systems refuse.
    struct Calls: Sendable {
        /// Makes `alias` a second name of `existing`; returns 0 or the `errno` of the failure.
        var link: @Sendable (_ existing: String, _ alias: String) -> Int32

        /// The real system calls.
        static let system = Calls(link: { existing, alias in
            #if canImport(Glibc)
            Glibc.link(existing, alias) == 0 ? 0 : errno
            #else
            Darwin.link(existing, alias) == 0 ? 0 : errno
            #endif
        })
    }

    /// How ``backup(_:as:mode:calls:)`` made the backup.
    enum BackupMethod: Equatable {
        /// `existing` does not exist: nothing to back up.
        case none
        /// A hard link (no data written).
        case hardLink
        /// A copy flushed with `fsync`, because the file system refused the link.
        case copy(errno: Int32)
    }

    /// Makes `alias` a second name of `existing` — a hard link, or, when the file system refuses
    /// links (`EPERM`, `ENOTSUP`, `EXDEV`, `EMLINK`…), a copy written with `mode` and `fsync`ed.
    /// Either way `alias` holds flushed content when this returns.
    static func backup(_ existing: String, as alias: String, mode: UInt16, calls: Calls) throws(StorageError) -> BackupMethod {
        // A planted link is reported and left alone, not removed: someone put it there.
        if isSymbolicLink(alias) { throw .symbolicLink(path: alias) }
        if unlink(alias) != 0 && errno != ENOENT { throw .posix("unlink", alias) }
        let failure = calls.link(existing, alias)
        if failure == 0 { return .hardLink }
        if failure == ENOENT { return .none }
        switch readFile(existing, limit: stateFileLimit) {
        case .missing: return .none
        case .failed(let error): throw error
        case .bytes(let bytes):
            try writeAndSync(alias, bytes, mode: mode)
            return .copy(errno: failure)
        }
    }

    /// A file's device and inode: which file a name points at.
    struct Identity: Sendable, Equatable {
        var device: UInt64
        var inode: UInt64

        init(_ info: stat) {
            device = UInt64(info.st_dev)
            inode = UInt64(info.st_ino)
        }
    }

    /// The identity of the file `path` names now (following symbolic links); `nil` when none.
    static func identity(of path: String) -> Identity? {
        var info = stat()
        return stat(path, &info) == 0 ? Identity(info) : nil
    }

    /// The names in `path` (without `.` and `..`), unsorted.
    static func listDirectory(_ path: String) throws(StorageError) -> [String] {
        guard let names = POSIXFile.entries(of: path) else { throw .posix("list directory", path) }
        return names
    }

    /// Creates `path` (and missing parents) with mode 0755 when it does not exist.
    static func ensureDirectory(_ path: String) throws(StorageError) {
        var info = stat()
        if stat(path, &info) == 0 {
            guard info.st_mode & S_IFMT == S_IFDIR else {
                throw .system(operation: "use as data directory", path: path, errno: ENOTDIR, message: systemErrorText(ENOTDIR))
            }
            return
        }
        if let (failed, code) = POSIXFile.makeDirectories(path) { throw .posix("create directory", failed, errno: code) }
        guard chmod(path, 0o755) == 0 else { throw .posix("chmod", path) }
    }
}
