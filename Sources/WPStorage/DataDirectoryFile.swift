/// A small file of its own in the data directory, for a component whose state must be on disk
/// before it goes on (the SNMP engine's boots count): read whole and bounded, replaced
/// atomically — a temporary file, `fsync`, rename, the directory's `fsync` — so a crash leaves
/// the old contents or the new, never a mix. The data directory's lock covers it as it covers
/// the state file; what the bytes mean is its owner's.
package struct DataDirectoryFile: Sendable {
    /// The file's path.
    package let path: String
    private let directory: String

    /// The file `name` in `directory` (the data directory).
    package init(directory: String, name: String) {
        self.directory = directory
        path = directory.hasSuffix("/") ? directory + name : directory + "/" + name
    }

    /// The file's bytes, `nil` when there is none.
    ///
    /// - Throws: ``StorageError`` when it cannot be read, is larger than 64 KiB, is a symbolic
    ///   link or not a regular file.
    package func read() throws(StorageError) -> [UInt8]? {
        switch FileSystem.readFile(path, limit: FileSystem.smallFileLimit) {
        case .missing: return nil
        case .failed(let error): throw error
        case .bytes(let bytes): return bytes
        }
    }

    /// Replaces the file with `bytes` (permissions `mode`), on stable storage when it returns.
    ///
    /// - Throws: ``StorageError`` naming the step that failed; the previous file is intact.
    package func replace(with bytes: [UInt8], mode: UInt16 = 0o600) throws(StorageError) {
        let temporary = path + ".tmp"
        try FileSystem.writeAndSync(temporary, bytes, mode: mode)
        try FileSystem.rename(temporary, path)
        try FileSystem.syncDirectory(directory)
    }
}
