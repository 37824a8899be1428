/// Requires HTTP basic authentication in front of another handler.
///
/// Requests without valid credentials get `401` with
/// `WWW-Authenticate: Basic realm="wpexporter"` (the same answer for a wrong password and an
/// unknown user). Every path is protected except those in `openPaths` (for example
/// `/-/healthy` for load-balancer probes). Credentials are never logged.
///
/// Credentials verified before are answered from the authenticator's cache on the spot, with
/// no thread hop. Others are verified on the authenticator's ``BCryptPool``, never on the event
/// loop; when its queue is full the answer is `429 Too Many Requests` with `Retry-After: 1`.
/// An address with repeated failures waits in the pool's suspect lane (behind every other
/// address) and gets its `401` late, the more so the more it fails; a correct login from it,
/// from the cache or not, clears that. A password is compared whole: one holding a NUL byte
/// never matches.
///
/// ```swift
/// let protected = BasicAuthHandler(wrapping: router, authenticator: authenticator,
///                                  openPaths: ["/-/healthy"])
/// ```
public struct BasicAuthHandler: HTTPHandler {
    private let inner: any HTTPHandler
    /// Checks the credentials.
    public let authenticator: WPBasicAuthenticator
    /// Paths answered without credentials.
    public let openPaths: Set<String>

    /// Wraps `inner`.
    ///
    /// - Parameters:
    ///   - inner: Answers authenticated requests.
    ///   - authenticator: Users and their bcrypt hashes.
    ///   - openPaths: Exact paths that need no credentials; empty protects everything.
    public init(wrapping inner: any HTTPHandler, authenticator: WPBasicAuthenticator, openPaths: Set<String> = []) {
        self.inner = inner
        self.authenticator = authenticator
        self.openPaths = openPaths
    }

    /// What the wrapped handler says: credentials are checked once the request is whole.
    public func acceptsBody(_ head: WPHTTPRequest) -> Bool { inner.acceptsBody(head) }
    /// The wrapped handler's answer: a check is a cache look-up, or waits for the bcrypt
    /// threads without holding the loop.
    public func servesPreRenderedBody(_ request: WPHTTPRequest) -> Bool { inner.servesPreRenderedBody(request) }

    /// The wrapped handler's answer when the path is open or the credentials verify; otherwise
    /// `401` with a challenge (delayed for a suspect address), or `429` when too many
    /// verifications are waiting.
    public func handle(_ request: WPHTTPRequest) async throws -> WPHTTPResponse {
        if openPaths.contains(request.path) { return try await inner.handle(request) }
        guard let credentials = request.headers["Authorization"].flatMap(BasicCredentials.init(header:)) else {
            return challenge()
        }
        let authenticator = self.authenticator
        let address = AuthFailureTracker.host(of: request.remoteAddress)
        if authenticator.isCached(user: credentials.user, password: credentials.password) {
            // A correct login clears the address's failures, cached or not.
            authenticator.failures.recordSuccess(of: address)
            return try await inner.handle(request)
        }
        let lane: BCryptPool.Lane = authenticator.failures.isSuspect(address) ? .suspect : .clean
        let outcome = await authenticator.pool.run(lane: lane) {
            authenticator.verify(user: credentials.user, password: credentials.password)
        }
        switch outcome {
        case nil:
            var response = WPHTTPResponse.text("too many login attempts in progress; retry later\n", status: 429)
            response.headers.set(name: "Retry-After", value: "1")
            return response
        case true?:
            authenticator.failures.recordSuccess(of: address)
            return try await inner.handle(request)
        case false?:
            let delay = authenticator.failures.recordFailure(of: address)
            if delay > .zero { try? await Task.sleep(for: delay) }
            return challenge()
        }
    }

    private func challenge() -> WPHTTPResponse {
        var response = WPHTTPResponse.text("unauthorized\n", status: 401)
        response.headers.set(name: "WWW-Authenticate", value: "Basic realm=\"\(authenticator.realm)\"")
        return response
    }
}
