#if canImport(Glibc)
import WPRuntime
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import WPText
import WPLogging

/// An exclusive `flock` on `<data_dir>/wpexporter.lock`, holding the owner's pid as text.
///
/// The kernel drops the lock when the process dies (even by SIGKILL), so a stale lock file
/// never blocks a restart. A second process (or a second store in the same process) trying to
/// lock the same directory gets ``StorageError/locked(lockFile:ownerPID:)`` naming the owner.
/// A lock whose owner already released it, but whose descriptor a child process still holds
/// for a moment (between fork and exec, when the owner starts a program), is waited for up to
/// 1 s instead of being reported as taken.
///
/// An `flock` belongs to the file, not to its name: when the lock file (or the whole data
/// directory) is removed, renamed or replaced while the lock is held, the lock still holds the
/// old file and no longer protects the directory at ``path``. ``isCurrent()`` tells, by
/// comparing the locked file's device and inode with what the name points at now.
struct DataDirectoryLock: Sendable {
    static let fileName = "wpexporter.lock"

    let path: String
    private(set) var descriptor: Int32
    /// Device and inode of the locked file.
    let identity: FileSystem.Identity

    /// Takes the lock or throws without waiting.
    static func acquire(directory: String) throws(StorageError) -> DataDirectoryLock {
        let path = directory + "/" + fileName
        // Never through a symbolic link: truncating and writing the pid would hit its target.
        let fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0o644)
        guard fd >= 0 else { throw FileSystem.refusal("open lock file", path) }
        var attempts = 0
        while flock(fd, LOCK_EX | LOCK_NB) != 0 {
            let code = errno
            let owner = readOwner(fd)
            // No owner written: the holder released the lock (``release()`` empties the file)
            // and a copy of its descriptor lives on in a child process between fork and exec,
            // or a new owner has not written its pid yet. Either ends within moments.
            if code == EWOULDBLOCK, owner == nil, attempts < releaseRetries {
                attempts += 1
                usleep(5_000)
                continue
            }
            close(fd)
            if code == EWOULDBLOCK { throw .locked(lockFile: path, ownerPID: owner) }
            throw .posix("lock", path, errno: code)
        }
        let text = Array("\(getpid())\n".utf8)
        var info = stat()
        if ftruncate(fd, 0) != 0 || text.withUnsafeBytes({ pwrite(fd, $0.baseAddress, $0.count, 0) }) != text.count {
            let error = StorageError.posix("write pid to lock file", path)
            close(fd)
            throw error
        }
        guard fstat(fd, &info) == 0 else {
            let error = StorageError.posix("stat lock file", path)
            close(fd)
            throw error
        }
        return DataDirectoryLock(path: path, descriptor: fd, identity: FileSystem.Identity(info))
    }

    /// Whether ``path`` still names the locked file. `false` when the lock file or its
    /// directory was removed, renamed or replaced (or the lock was released): the lock then
    /// protects nothing at ``path``, and another process could lock the directory there.
    func isCurrent() -> Bool {
        descriptor >= 0 && FileSystem.identity(of: path) == identity
    }

    /// Where the locked file is now, as the kernel names it: on Linux the target of
    /// `/proc/self/fd/N` (for instance `/srv/data.old/wpexporter.lock` after the directory was
    /// renamed, or the old path followed by ` (deleted)` once removed); `nil` elsewhere or
    /// when released.
    func currentLocation() -> String? {
        #if os(Linux)
        guard descriptor >= 0 else { return nil }
        var buffer = [CChar](repeating: 0, count: 4096)
        let count = readlink("/proc/self/fd/\(descriptor)", &buffer, buffer.count - 1)
        guard count > 0 else { return nil }
        return String(decoding: buffer[0..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
        #else
        return nil
        #endif
    }

    /// Checks of a lock with no owner written before giving up (5 ms apart: 1 s in all).
    static let releaseRetries = 200

    /// Releases the lock (closing the descriptor releases the `flock`). Idempotent. The pid is
    /// erased first, so a store opened right after never names this process as the owner.
    mutating func release() {
        guard descriptor >= 0 else { return }
        _ = ftruncate(descriptor, 0)
        close(descriptor)
        descriptor = -1
    }

    private static func readOwner(_ fd: Int32) -> Int32? {
        var buffer = [UInt8](repeating: 0, count: 32)
        let count = buffer.withUnsafeMutableBytes { pread(fd, $0.baseAddress, $0.count, 0) }
        guard count > 0 else { return nil }
        let text = String(decoding: buffer[0..<count], as: UTF8.self)
        return Int32(text.trimmingWhitespace())
    }
}
