public import WPConfig
public import WPServer

/// What the web configuration file (`server.web_config_file`, `--web.config.file`) changes
/// in the HTTP server: TLS settings and a wrapper adding basic authentication and headers.
public struct WebSecurity: Sendable {
    /// Put into `WPHTTPServer.Configuration.tls`; nil serves plain HTTP.
    public var tls: WPTLSConfiguration?
    /// Wraps the exporter's router (basic authentication, extra response headers).
    public var wrap: @Sendable (any HTTPHandler) -> any HTTPHandler
    /// To print on standard error at start (never contains hashes).
    public var warnings: [ConfigDiagnostic]
    /// The threads that check `basic_auth_users`' bcrypt hashes, when there are any: the
    /// exporter's NUT server checks its users' hashes on the same ones, so bcrypt's CPU is
    /// bounded once for every listener.
    public var passwords: BCryptPool?

    /// Creates the changes: TLS settings, the handler wrapper, the warnings to print and the
    /// bcrypt threads.
    public init(tls: WPTLSConfiguration?, wrap: @escaping @Sendable (any HTTPHandler) -> any HTTPHandler,
                warnings: [ConfigDiagnostic], passwords: BCryptPool? = nil) {
        self.tls = tls
        self.wrap = wrap
        self.warnings = warnings
        self.passwords = passwords
    }

    /// No web configuration file: plain HTTP, handler unchanged.
    public static let none = WebSecurity(tls: nil, wrap: { $0 }, warnings: [])
}

/// Reads the web configuration file and turns it into the server's TLS settings and handler
/// wrapper. Without a file, nothing changes.
///
/// ```swift
/// let security = try loadWebSecurity(path: loaded.configuration.server.webConfigFile)
/// configuration.tls = security.tls
/// let server = WPHTTPServer(configuration: configuration, handler: security.wrap(router), logger: log)
/// ```
///
/// - Parameters:
///   - path: The web configuration file, nil when none is configured.
///   - files: File access; the real filesystem by default.
/// - Returns: TLS settings, the handler wrapper and warnings.
/// - Throws: `ConfigurationError` listing every problem of the file (exit status 78).
package func loadWebSecurity(path: String?, files: FileAccess = .system) throws(ConfigurationError) -> WebSecurity {
    guard let path else { return .none }
    let web = try WebConfiguration.load(path: path, files: files)
    var tls: WPTLSConfiguration?
    if let server = web.tlsServer {
        var settings = WPTLSConfiguration(certificateFile: server.certFile, keyFile: server.keyFile)
        settings.clientAuthentication = WPTLSConfiguration.ClientAuthentication(rawValue: server.clientAuthType) ?? .none
        settings.clientCAFile = server.clientCAFile
        settings.minimumVersion = WPTLSConfiguration.ProtocolVersion(rawValue: server.minVersion) ?? .tls12
        settings.maximumVersion = server.maxVersion.flatMap(WPTLSConfiguration.ProtocolVersion.init(rawValue:))
        settings.cipherSuites = server.cipherSuites
        settings.preferServerCipherSuites = server.preferServerCipherSuites
        tls = settings
    }
    let authenticator: WPBasicAuthenticator?
    do {
        authenticator = web.basicAuthUsers.isEmpty ? nil : try WPBasicAuthenticator(users: web.basicAuthUsers)
    } catch {
        throw ConfigurationError(problems: [ConfigDiagnostic(key: "basic_auth_users", source: .file(path: path, position: nil),
                                                             message: error.description)])
    }
    let headers = web.headers.map { ($0.name, $0.value) }
    let openPaths = Set(web.unauthenticatedPaths)
    return WebSecurity(tls: tls, wrap: { handler in
        var wrapped = handler
        if let authenticator { wrapped = BasicAuthHandler(wrapping: wrapped, authenticator: authenticator, openPaths: openPaths) }
        if !headers.isEmpty { wrapped = ExtraHeadersHandler(inner: wrapped, headers: headers) }
        return wrapped
    }, warnings: web.warnings, passwords: authenticator?.pool)
}

extension WebSecurity {
    /// Reads the web configuration file at `path` (`server.web_config_file`): TLS settings,
    /// basic authentication and extra headers; plain HTTP without a file.
    ///
    /// - Parameters:
    ///   - path: the file; `nil` for none (plain HTTP, no authentication).
    ///   - files: how the file is read (the file system by default).
    /// - Throws: `ConfigurationError` listing every problem of the file.
    public static func load(path: String?, files: FileAccess = .system) throws(ConfigurationError) -> WebSecurity {
        try loadWebSecurity(path: path, files: files)
    }
}

/// Reports the requests basic authentication refuses, which never reach the router's own
/// counting: a 401 under the route's path, or `unmatched` for a path no route serves; a 429
/// (too many verifications queued) under `refused`, as the server's own refusals. The router
/// itself never answers 401 or 429, so every one seen here is a refusal.
package struct RefusalCounter: HTTPHandler {
    package let inner: any HTTPHandler
    package let observer: any RequestObserver
    /// The router's paths.
    package let paths: Set<String>

    package func acceptsBody(_ head: WPHTTPRequest) -> Bool { inner.acceptsBody(head) }
    package func servesPreRenderedBody(_ request: WPHTTPRequest) -> Bool { inner.servesPreRenderedBody(request) }

    package func handle(_ request: WPHTTPRequest) async throws -> WPHTTPResponse {
        let response = try await inner.handle(request)
        if response.status == 401 {
            observer.requestHandled(RequestEvent(handler: paths.contains(request.path) ? request.path : "unmatched",
                                                 method: request.method, status: 401, durationSeconds: 0))
        } else if response.status == 429 {
            observer.requestHandled(RequestEvent(handler: "refused", method: request.method, status: 429, durationSeconds: 0))
        }
        return response
    }
}

/// Adds `http_server_config.headers` to every response (401s included).
private struct ExtraHeadersHandler: HTTPHandler {
    package let inner: any HTTPHandler
    package let headers: [(String, String)]

    package func acceptsBody(_ head: WPHTTPRequest) -> Bool { inner.acceptsBody(head) }
    package func servesPreRenderedBody(_ request: WPHTTPRequest) -> Bool { inner.servesPreRenderedBody(request) }

    package func handle(_ request: WPHTTPRequest) async throws -> WPHTTPResponse {
        var response = try await inner.handle(request)
        for (name, value) in headers { response.headers.set(name: name, value: value) }
        return response
    }
}
