#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// What makes a write survive a crash, written once for the state file, the data directory's
/// files and the rotated logs: a file flushed, a name replaced atomically, a directory's
/// entries flushed.
extension POSIXFile {
    /// Flushes `fd`'s data and metadata to stable storage (`fsync(2)`, retried on `EINTR`).
    ///
    /// - Returns: `nil`, or the `errno` of the failure.
    package static func sync(_ fd: Int32) -> Int32? {
        while fsync(fd) != 0 {
            if errno == EINTR { continue }
            return errno
        }
        return nil
    }

    /// Gives the file at `source` the name `destination` in one step (`rename(2)`), replacing
    /// whatever `destination` named.
    ///
    /// - Returns: `nil`, or the `errno` of the failure.
    package static func rename(_ source: String, to destination: String) -> Int32? {
        #if canImport(Glibc)
        Glibc.rename(source, destination) == 0 ? nil : errno
        #elseif canImport(Musl)
        Musl.rename(source, destination) == 0 ? nil : errno
        #else
        Darwin.rename(source, destination) == 0 ? nil : errno
        #endif
    }

    /// What ``syncDirectory(_:)`` could not do.
    package struct DirectorySyncFailure: Error, Equatable, Sendable {
        /// `open directory` or `fsync directory`.
        package var operation: String
        /// The call's `errno`.
        package var errno: Int32

        package init(operation: String, errno: Int32) {
            self.operation = operation
            self.errno = errno
        }
    }

    /// Flushes the entries of directory `path` (names made, replaced or removed by `rename`,
    /// `link`, `unlink`) to stable storage: the step after a rename that makes the new name
    /// survive a power cut.
    ///
    /// - Returns: `nil`, or which step failed and its `errno`.
    package static func syncDirectory(_ path: String) -> DirectorySyncFailure? {
        let fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { return DirectorySyncFailure(operation: "open directory", errno: errno) }
        defer { close(fd) }
        if let code = sync(fd) { return DirectorySyncFailure(operation: "fsync directory", errno: code) }
        return nil
    }

    /// What ``readChunk(_:into:count:)`` got.
    package enum ChunkRead: Equatable, Sendable {
        /// This many bytes, at the start of the buffer; 0 at the end of the file.
        case read(Int)
        /// `read(2)` failed with this `errno`.
        case failed(Int32)
    }

    /// Reads what `fd` has, up to `count` bytes (all of `buffer` by default; a count below 1
    /// reads nothing and gives `.read(0)`, which a loop takes for the end), into the start of
    /// `buffer` (`read(2)`, retried on `EINTR`): the read call of ``read(_:limit:)`` and of
    /// every loop that streams a file.
    package static func readChunk(_ fd: Int32, into buffer: inout [UInt8], count: Int? = nil) -> ChunkRead {
        let wanted = max(0, min(count ?? buffer.count, buffer.count))
        while true {
            let result = buffer.withUnsafeMutableBytes { readCall(fd, $0.baseAddress, wanted) }
            if result >= 0 { return .read(result) }
            if errno != EINTR { return .failed(errno) }
        }
    }
}
