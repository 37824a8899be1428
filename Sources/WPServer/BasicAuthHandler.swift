/// Requires HTTP basic authentication in front of another handler.
///
/// Requests without valid credentials get `401` with
/// `WWW-Authenticate: Basic realm="wpexporter"` (the same answer for a wrong password and an
/// unknown user). Every path is protected except those in `openPaths` (for example
/// `/-/healthy` for load-balancer probes). bcrypt runs off the event loop, so a slow
/// verification never delays other connections. Credentials are never logged.
///
/// ```swift
/// let protected = BasicAuthHandler(wrapping: router, authenticator: authenticator,
///                                  openPaths: ["/-/healthy"])
/// ```
public struct BasicAuthHandler: HTTPHandler {
    private let inner: any HTTPHandler
    /// Checks the credentials.
    public let authenticator: BasicAuthenticator
    /// Paths answered without credentials.
    public let openPaths: Set<String>

    /// Wraps `inner`.
    ///
    /// - Parameters:
    ///   - inner: Answers authenticated requests.
    ///   - authenticator: Users and their bcrypt hashes.
    ///   - openPaths: Exact paths that need no credentials; empty protects everything.
    public init(wrapping inner: any HTTPHandler, authenticator: BasicAuthenticator, openPaths: Set<String> = []) {
        self.inner = inner
        self.authenticator = authenticator
        self.openPaths = openPaths
    }

    public func handle(_ request: HTTPRequest) async throws -> HTTPResponse {
        if openPaths.contains(request.path) { return try await inner.handle(request) }
        let header = request.headers["Authorization"]
        let authenticator = self.authenticator
        let accepted = await Task.detached { authenticator.verify(authorization: header) }.value
        guard accepted else {
            var response = HTTPResponse.text("unauthorized\n", status: 401)
            response.headers.set(name: "WWW-Authenticate", value: "Basic realm=\"\(authenticator.realm)\"")
            return response
        }
        return try await inner.handle(request)
    }
}
