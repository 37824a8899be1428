import WPPOSIX
import WPRuntime
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Errors of the energy store. Each names the file or directory involved.
public enum StorageError: Error, Equatable, CustomStringConvertible {
    /// Another process holds the data directory's lock file.
    case locked(lockFile: String, ownerPID: Int32?)
    /// While running, the lock file was removed or replaced (the data directory deleted,
    /// renamed or swapped, or the file alone) and another process has locked the directory
    /// since: the store no longer saves into it.
    case lockTaken(lockFile: String, ownerPID: Int32?)
    /// A system call failed; `errno` and its text are captured where it was thrown.
    case system(operation: String, path: String, errno: Int32, message: String)
    /// A state file could not be decoded (bad header, checksum, syntax or values).
    case invalidStateFile(path: String, reason: String)
    /// The state given to `save` cannot be stored (a total that is not a finite number ≥ 0).
    case invalidState(reason: String)
    /// The store was closed and cannot be used any more.
    case closed(dataDirectory: String)
    /// A file of the data directory is a symbolic link: never followed, and left as it is.
    case symbolicLink(path: String)
    /// A file is larger than the most it may hold (`limit` bytes): refused after reading
    /// `limit` + 1 bytes, never read whole.
    case tooLarge(path: String, limit: Int)

    /// Captures the current `errno` for `operation` on `path`.
    static func posix(_ operation: String, _ path: String, errno code: Int32 = errno) -> StorageError {
        .system(operation: operation, path: path, errno: code, message: systemErrorText(code))
    }

    /// The process holding a lock, by the pid its lock file records and, where the system says,
    /// its program's name (`another process (pid 4242, myservice)`): the lock may be held by a
    /// service embedding the exporter as well as by `wpexporter`.
    static func owner(_ pid: Int32?) -> String {
        guard let pid else { return "another process" }
        guard let name = programName(pid) else { return "another process (pid \(pid))" }
        return "another process (pid \(pid), \(name))"
    }

    /// The name the kernel shows for `pid` (`/proc/PID/comm`), if it runs and is readable.
    static func programName(_ pid: Int32) -> String? {
        guard case .success(let bytes) = POSIXFile.readRegularFile("/proc/\(pid)/comm", limit: 64, prefix: true) else { return nil }
        let name = String(decoding: bytes.filter { $0 != 0x0A }, as: UTF8.self)
        return name.isEmpty ? nil : name
    }

    /// What failed and the file or directory involved, with the system's reason and, where there is
    /// one, what to do.
    public var description: String {
        switch self {
        case .locked(let lockFile, let pid) where pid == getpid():
            return "data directory is already open in this process (pid \(pid!)): lock \(lockFile) is held by another "
                + "store or exporter it runs; close that one first or give this one another storage.data_dir"
        case .locked(let lockFile, let pid):
            return "data directory is in use by \(Self.owner(pid)): lock \(lockFile) is held; "
                + "stop that process or give this one another storage.data_dir"
        case .lockTaken(let lockFile, let pid):
            let owner = pid == getpid() ? "another store or exporter of this process (pid \(pid!))" : Self.owner(pid)
            return "the data directory's lock was lost: its lock file \(lockFile) was removed or replaced while "
                + "running and \(owner) holds the new one; not saving into a directory another exporter uses "
                + "(stop one of them, or give them different storage.data_dir)"
        case .system(let operation, let path, let code, let message):
            return "\(operation) \(path): \(message) (errno \(code))"
        case .invalidStateFile(let path, let reason):
            return "invalid energy state file \(path): \(reason)"
        case .invalidState(let reason):
            return "energy state not saved: \(reason)"
        case .closed(let dataDirectory):
            return "energy store for \(dataDirectory) is closed"
        case .symbolicLink(let path):
            return "\(path) is a symbolic link: files in the data directory are never opened through a link "
                + "(one planted there would make the exporter write where it points); it was left as it is: remove it"
        case .tooLarge(let path, let limit):
            return "\(path) is larger than \(limit) bytes, the most it may hold; it was not read"
        }
    }
}
