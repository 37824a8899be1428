#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import WPLogging

/// An exclusive `flock` on `<data_dir>/wpexporter.lock`, holding the owner's pid as text.
///
/// The kernel drops the lock when the process dies (even by SIGKILL), so a stale lock file
/// never blocks a restart. A second process (or a second store in the same process) trying to
/// lock the same directory gets ``StorageError/locked(lockFile:ownerPID:)`` naming the owner.
struct DataDirectoryLock: Sendable {
    static let fileName = "wpexporter.lock"

    let path: String
    private(set) var descriptor: Int32

    /// Takes the lock or throws without waiting.
    static func acquire(directory: String) throws(StorageError) -> DataDirectoryLock {
        let path = directory + "/" + fileName
        let fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw .posix("open lock file", path) }
        if flock(fd, LOCK_EX | LOCK_NB) != 0 {
            let code = errno
            let owner = readOwner(fd)
            close(fd)
            if code == EWOULDBLOCK { throw .locked(lockFile: path, ownerPID: owner) }
            throw .posix("lock", path, errno: code)
        }
        let text = Array("\(getpid())\n".utf8)
        if ftruncate(fd, 0) != 0 || text.withUnsafeBytes({ pwrite(fd, $0.baseAddress, $0.count, 0) }) != text.count {
            let error = StorageError.posix("write pid to lock file", path)
            close(fd)
            throw error
        }
        return DataDirectoryLock(path: path, descriptor: fd)
    }

    /// Releases the lock (closing the descriptor releases the `flock`). Idempotent.
    mutating func release() {
        guard descriptor >= 0 else { return }
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
