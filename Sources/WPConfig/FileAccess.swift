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
    /// The permission bits (`0o777` mask) of a file, nil when unknown.
    public var permissions: @Sendable (String) -> Int?
    /// Why a directory the exporter must write in cannot be used (`"is not a directory"`,
    /// `"is not writable"`), nil when it can or does not exist yet.
    public var directoryProblem: @Sendable (String) -> String?

    /// Creates file access from closures.
    public init(read: @escaping @Sendable (String) -> Result<String, FileAccessError>,
                permissions: @escaping @Sendable (String) -> Int?,
                directoryProblem: @escaping @Sendable (String) -> String? = { _ in nil }) {
        self.read = read
        self.permissions = permissions
        self.directoryProblem = directoryProblem
    }

    /// Files held in memory, by path; `modes` gives permission bits (default `0o600`).
    public static func inMemory(_ files: [String: String], modes: [String: Int] = [:]) -> FileAccess {
        FileAccess(read: { path in
            if let text = files[path] { return .success(text) }
            return .failure(.notFound)
        }, permissions: { path in
            files[path] == nil ? nil : modes[path] ?? 0o600
        }, directoryProblem: { path in
            files[path] == nil ? nil : "is not a directory"
        })
    }
}
