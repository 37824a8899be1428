/// Why a log output could not be set up.
///
/// Equatable by case and payload; `description` is the message to show a user, naming the
/// path and the operating system's reason.
public enum LoggingError: Error, Equatable, CustomStringConvertible {
    /// The directory for the log file could not be created.
    case cannotCreateDirectory(path: String, errno: Int32, reason: String)
    /// The log file could not be opened for appending.
    case cannotOpenFile(path: String, errno: Int32, reason: String)
    /// A setting is out of range, e.g. `max_size` below 1 MB or an empty file path.
    case invalidConfiguration(key: String, message: String)

    /// The message to show a user: what could not be set up, naming the path or the key, and why.
    public var description: String {
        switch self {
        case .cannotCreateDirectory(let path, let code, let reason):
            "cannot create log directory \(path): \(reason) (errno \(code))"
        case .cannotOpenFile(let path, let code, let reason):
            "cannot open log file \(path) for appending: \(reason) (errno \(code))"
        case .invalidConfiguration(let key, let message):
            "invalid logging configuration: \(key): \(message)"
        }
    }
}
