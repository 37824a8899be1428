/// The web configuration file: TLS, basic authentication and extra response headers, in the
/// format of the Prometheus exporter-toolkit, so a file written for other exporters works.
///
/// ```yaml
/// tls_server_config:
///   cert_file: tls.crt                     # relative paths: from the file's directory
///   key_file: tls.key
///   client_auth_type: RequireAndVerifyClientCert
///   client_ca_file: clients-ca.crt
///   min_version: TLS12
/// basic_auth_users:
///   prometheus: $2b$10$...                 # bcrypt only
/// http_server_config:
///   headers:
///     Strict-Transport-Security: max-age=31536000
/// unauthenticated_paths: [/-/healthy]      # wpexporter's addition; everything else needs auth
/// ```
///
/// Loading lists every problem with `file:line:column` (unknown keys, unreadable certificate
/// or key, non-bcrypt hashes, invalid versions) and throws them together. Hashes never appear
/// in messages.
///
/// ```swift
/// let web = try WebConfiguration.load(path: "web.yaml", files: files)
/// ```
public struct WebConfiguration: Sendable, Equatable {
    /// `tls_server_config`.
    public struct TLSServer: Sendable, Equatable {
        /// PEM certificate chain, resolved against the web configuration file's directory.
        public var certFile: String
        /// PEM private key, resolved like ``certFile``.
        public var keyFile: String
        /// `NoClientCert` (default), `RequestClientCert`, `RequireAnyClientCert`,
        /// `VerifyClientCertIfGiven` or `RequireAndVerifyClientCert`.
        public var clientAuthType: String = "NoClientCert"
        /// CA bundle for client certificates.
        public var clientCAFile: String?
        /// `TLS10` ... `TLS13`; `TLS12` by default.
        public var minVersion: String = "TLS12"
        /// `TLS10` ... `TLS13`; nil for the newest.
        public var maxVersion: String?
        /// TLS 1.2 cipher suites by IANA name; empty for the library's default.
        public var cipherSuites: [String] = []
        /// Prefer the server's cipher order (default true).
        public var preferServerCipherSuites: Bool = true

        /// Creates TLS settings with defaults.
        public init(certFile: String, keyFile: String) {
            self.certFile = certFile
            self.keyFile = keyFile
        }
    }

    /// One extra response header from `http_server_config.headers`.
    public struct Header: Sendable, Equatable {
        /// The header's name.
        public var name: String
        /// The header's value.
        public var value: String
    }

    /// TLS settings; nil serves plain HTTP.
    public var tlsServer: TLSServer?
    /// User → bcrypt hash; empty disables basic authentication.
    public var basicAuthUsers: [String: String] = [:]
    /// Headers added to every response.
    public var headers: [Header] = []
    /// Paths served without basic authentication (only the health checks `/health` and
    /// `/-/healthy` may be listed).
    public var unauthenticatedPaths: [String] = []
    /// Things accepted but worth saying (a key file readable by others, `http2` ignored).
    public var warnings: [ConfigDiagnostic] = []

    /// Creates an empty configuration (plain HTTP, no authentication).
    public init() {}

    /// Client authentication policies accepted in `client_auth_type`.
    public static let clientAuthTypes = ["NoClientCert", "RequestClientCert", "RequireAnyClientCert",
                                         "VerifyClientCertIfGiven", "RequireAndVerifyClientCert"]
    /// Versions accepted in `min_version` and `max_version`.
    public static let versions = ["TLS10", "TLS11", "TLS12", "TLS13"]
    /// TLS 1.2 cipher suites accepted in `cipher_suites` (IANA names, as Go spells them).
    public static let cipherSuiteNames: Set<String> = [
        "TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256", "TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256",
        "TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384", "TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384",
        "TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256", "TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256",
        "TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA", "TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA",
        "TLS_ECDHE_ECDSA_WITH_AES_256_CBC_SHA", "TLS_ECDHE_RSA_WITH_AES_256_CBC_SHA",
        "TLS_RSA_WITH_AES_128_GCM_SHA256", "TLS_RSA_WITH_AES_256_GCM_SHA384",
        "TLS_RSA_WITH_AES_128_CBC_SHA", "TLS_RSA_WITH_AES_256_CBC_SHA",
    ]
    /// Paths that may be listed in `unauthenticated_paths`.
    public static let openablePaths: Set<String> = ["/health", "/-/healthy"]

    /// Reads and validates a web configuration file.
    ///
    /// - Parameters:
    ///   - path: The file (`--web.config.file`, `server.web_config_file`).
    ///   - files: File access (the real filesystem in the executable, a dictionary in tests);
    ///     also used to check that the certificate, key and CA files are readable PEM.
    /// - Returns: The validated configuration, its warnings in ``warnings``.
    /// - Throws: ``ConfigurationError`` listing every problem.
    public static func load(path: String, files: FileAccess) throws(ConfigurationError) -> WebConfiguration {
        try WebConfigurationReader.load(path: path, files: files, key: "server.web_config_file", parse: parse)
    }

    /// Validates web configuration text; `file` names it in messages and anchors relative paths.
    ///
    /// - Throws: ``ConfigurationError`` listing every problem.
    public static func parse(_ text: String, file: String, files: FileAccess) throws(ConfigurationError) -> WebConfiguration {
        try WebConfigurationReader.parse(text, file: file, files: files) { root, reader in reader.read(root) }
    }
}
