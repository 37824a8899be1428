import WPPOSIX
import WPRuntime
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Why a file could not be read.
public enum FileAccessError: Error, Sendable, Equatable {
    /// No file at that path.
    case notFound
    /// The file exists but cannot be read; the reason is the system's message.
    case unreadable(String)
}

/// How the configuration loader reaches files, injected so loading is hermetic in tests.
///
/// The executable passes closures over the real filesystem; tests pass a dictionary.
///
/// ```swift
/// let files = FileAccess.inMemory(["./config.yaml": "server:\n  port: 9100\n"])
/// ```
public struct FileAccess: Sendable {
    /// Reads a whole file as UTF-8 text.
    public var read: @Sendable (String) -> Result<String, FileAccessError>
    /// Reads at most `limit` bytes from the start of a file (fewer when the file is shorter):
    /// for files that must be small, such as a password file, which are never read whole.
    public var readPrefix: @Sendable (_ path: String, _ limit: Int) -> Result<[UInt8], FileAccessError>
    /// The permission bits (`0o777` mask) of a file, nil when unknown.
    public var permissions: @Sendable (String) -> Int?
    /// Why a directory the exporter must write in cannot be used (`"is not a directory"`,
    /// `"is not writable"`), nil when it can or does not exist yet.
    public var directoryProblem: @Sendable (String) -> String?

    /// Creates file access from closures.
    ///
    /// - Parameters:
    ///   - read: Reads a whole file as UTF-8 text (the configuration file).
    ///   - readPrefix: Reads the start of a file; `nil` (the default) reads the real
    ///     filesystem with ``readPrefix(ofFileAt:limit:)``. Pass one when `read` does not read
    ///     the real filesystem and password files are involved.
    ///   - permissions: The permission bits of a file (``permissions``).
    ///   - directoryProblem: Why a directory cannot be written in (``directoryProblem``); none
    ///     by default.
    public init(read: @escaping @Sendable (String) -> Result<String, FileAccessError>,
                readPrefix: (@Sendable (_ path: String, _ limit: Int) -> Result<[UInt8], FileAccessError>)? = nil,
                permissions: @escaping @Sendable (String) -> Int?,
                directoryProblem: @escaping @Sendable (String) -> String? = { _ in nil }) {
        self.read = read
        self.readPrefix = readPrefix ?? { path, limit in Self.readPrefix(ofFileAt: path, limit: limit) }
        self.permissions = permissions
        self.directoryProblem = directoryProblem
    }

    /// Files held in memory, by path; `modes` gives permission bits (default `0o600`).
    public static func inMemory(_ files: [String: String], modes: [String: Int] = [:]) -> FileAccess {
        FileAccess(read: { path in
            if let text = files[path] { return .success(text) }
            return .failure(.notFound)
        }, readPrefix: { path, limit in
            if let text = files[path] { return .success(Array(text.utf8.prefix(limit))) }
            return .failure(.notFound)
        }, permissions: { path in
            files[path] == nil ? nil : modes[path] ?? 0o600
        }, directoryProblem: { path in
            files[path] == nil ? nil : "is not a directory"
        })
    }
}

extension FileAccess {
    /// `readable by other users (mode 0644)` when the group or others may read the file at
    /// `path`, nil when they may not or its mode is unknown: the one test and wording of every
    /// warning about a file holding a secret (passwords, communities, a private key).
    func readableByOthers(_ path: String) -> String? {
        guard let mode = permissions(path), mode & 0o044 != 0 else { return nil }
        return "readable by other users (mode 0\(String(mode & 0o777, radix: 8)))"
    }
}

extension FileAccess {
    /// At most `limit` bytes from the start of the file at `path`, read with `open` and `read`:
    /// a huge or endless file (a 256 MB sparse file, `/dev/zero`) costs `limit` bytes, not its
    /// size. Relative paths resolve against the working directory.
    ///
    /// - Parameters:
    ///   - path: The file.
    ///   - limit: The most bytes to read (at least 0).
    /// - Returns: The bytes, or ``FileAccessError/notFound`` when nothing is at `path` and
    ///   ``FileAccessError/unreadable(_:)`` for a directory or a failed `open` or `read`.
    public static func readPrefix(ofFileAt path: String, limit: Int) -> Result<[UInt8], FileAccessError> {
        SystemFile.readPrefix(path, limit: limit)
    }

    /// The most bytes a file the configuration names and the exporter reads as text may hold
    /// (1 MiB): the configuration file, the web configuration, the NUT and SNMP users files and
    /// the PEM files checked at load. The largest real ones hold a few hundred kilobytes (a
    /// thousand servers, a system CA bundle); a larger file is refused, never read whole.
    public static let textFileLimit = 1 << 20

    /// The UTF-8 text of the file at `path`, read with ``readPrefix(ofFileAt:limit:)`` (the one
    /// bounded reader, as for password files): at most `limit` + 1 bytes are read, so a huge or
    /// endless file costs `limit` bytes and is refused with the limit named; a FIFO, socket or
    /// device is named as such and never blocks.
    ///
    /// - Parameters:
    ///   - path: The file.
    ///   - limit: The most bytes accepted; ``textFileLimit`` by default.
    public static func readText(ofFileAt path: String, limit: Int = textFileLimit) -> Result<String, FileAccessError> {
        switch SystemFile.readPrefix(path, limit: limit + 1) {
        case .failure(let error):
            return .failure(error)
        case .success(let bytes):
            if bytes.count > limit {
                return .failure(.unreadable("it is larger than \(sizeText(limit)), the most such a file may hold"))
            }
            guard let text = String(validating: bytes, as: UTF8.self) else { return .failure(.unreadable("not UTF-8 text")) }
            return .success(text)
        }
    }

    /// `limit` in words: `1 MiB (1048576 bytes)`, `4096 bytes`.
    static func sizeText(_ limit: Int) -> String {
        if limit >= 1 << 20, limit % (1 << 20) == 0 { return "\(limit >> 20) MiB (\(limit) bytes)" }
        if limit >= 1 << 10, limit % (1 << 10) == 0 { return "\(limit >> 10) KiB (\(limit) bytes)" }
        return "\(limit) bytes"
    }
}

/// ``FileAccess/readPrefix(ofFileAt:limit:)`` over the one reader of files named by settings
/// (``POSIXFile/readRegularFile(_:limit:)``: no FIFO, no device, never blocking).
private enum SystemFile {
    static func readPrefix(_ path: String, limit: Int) -> Result<[UInt8], FileAccessError> {
        switch POSIXFile.readRegularFile(path, limit: limit, prefix: true) {
        case .success(let bytes): return .success(bytes)
        case .failure(.missing): return .failure(.notFound)
        case .failure(let refusal): return .failure(.unreadable(refusal.description))
        }
    }
}
