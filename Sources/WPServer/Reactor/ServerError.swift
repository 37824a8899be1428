/// Errors thrown by ``WPHTTPServer`` and ``LineServer``. Equatable by case and fields.
public enum ServerError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The listening socket could not be set up: address in use, permission denied, unknown host.
    case bind(address: String, reason: String)
    /// `run()` was called while the server was already running or after it finished.
    case alreadyStarted
    /// The server stopped (or failed) before it was listening.
    case notListening
    /// A system call the server cannot work without failed.
    case system(operation: String, reason: String)

    /// What failed: the address that cannot be listened on and why, or the system call and its
    /// reason.
    public var description: String {
        switch self {
        case .bind(let address, let reason): "cannot listen on \(address): \(reason)"
        case .alreadyStarted: "the server was already started"
        case .notListening: "the server is not listening"
        case .system(let operation, let reason): "\(operation) failed: \(reason)"
        }
    }
}

/// The name ``ServerError`` had when only ``WPHTTPServer`` threw it.
public typealias HTTPServerError = ServerError
