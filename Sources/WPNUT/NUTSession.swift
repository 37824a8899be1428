/// A NUT user's `upsmon` role (`upsmon primary` or `upsmon secondary` in a users file).
package enum NUTRole: String, Sendable, Equatable {
    case primary, secondary
}

/// A user who gave the right password.
package struct NUTUser: Sendable, Equatable {
    package var name: String
    /// `nil`: may read and log in, but neither claim primary nor set `FSD`.
    package var role: NUTRole?

    package init(name: String, role: NUTRole?) {
        self.name = name
        self.role = role
    }
}

/// Checks passwords (plain or bcrypt-hashed).
package protocol NUTUsers: Sendable {
    /// The user, when `password` is `username`'s; `nil` otherwise. A bcrypt check takes
    /// milliseconds of CPU: the server calls this off its event loop. `suspect`: the client
    /// failed too often lately (its check may wait behind others').
    func authenticate(username: String, password: String, suspect: Bool) async -> NUTUser?
}

/// Counts failed password checks by client host and says how long to hold back the answer
/// (basic authentication's `AuthFailureTracker` is one).
package protocol NUTFailureLimiter: Sendable {
    /// Whether `host` failed too often lately.
    func isSuspect(_ host: String) -> Bool
    /// Counts a failure of `host`; returns how long to hold back the answer (zero below the threshold).
    func recordFailure(of host: String) -> Duration
    /// Clears the failures of `host`.
    func recordSuccess(of host: String)
}

/// The answer to one command line.
package struct NUTReply: Sendable, Equatable {
    /// The reply, every line ending in `\n`.
    package var text: String
    /// `LOGOUT`: the server closes the connection once the reply is written.
    package var closes: Bool

    package init(_ text: String, closes: Bool = false) {
        self.text = text
        self.closes = closes
    }

    /// `ERR <code>\n`.
    package static func error(_ code: NUTError) -> NUTReply { NUTReply("ERR \(code.rawValue)\n") }
}

/// The protocol's error codes (the developer guide's list).
package enum NUTError: String, Sendable, Equatable, CaseIterable {
    case accessDenied = "ACCESS-DENIED"
    case unknownUPS = "UNKNOWN-UPS"
    case varNotSupported = "VAR-NOT-SUPPORTED"
    case cmdNotSupported = "CMD-NOT-SUPPORTED"
    case invalidArgument = "INVALID-ARGUMENT"
    case instcmdFailed = "INSTCMD-FAILED"
    case setFailed = "SET-FAILED"
    case readonly = "READONLY"
    case tooLong = "TOO-LONG"
    case featureNotSupported = "FEATURE-NOT-SUPPORTED"
    case featureNotConfigured = "FEATURE-NOT-CONFIGURED"
    case alreadySSLMode = "ALREADY-SSL-MODE"
    case driverNotConnected = "DRIVER-NOT-CONNECTED"
    case dataStale = "DATA-STALE"
    case alreadyLoggedIn = "ALREADY-LOGGED-IN"
    case invalidPassword = "INVALID-PASSWORD"
    case alreadySetPassword = "ALREADY-SET-PASSWORD"
    case invalidUsername = "INVALID-USERNAME"
    case alreadySetUsername = "ALREADY-SET-USERNAME"
    case usernameRequired = "USERNAME-REQUIRED"
    case passwordRequired = "PASSWORD-REQUIRED"
    case unknownCommand = "UNKNOWN-COMMAND"
    case invalidValue = "INVALID-VALUE"
}
