/// TLS settings of the listener: certificate, key, client certificates, versions, ciphers.
///
/// Set ``WPHTTPServer/Configuration/tls`` to serve HTTPS. OpenSSL 3 (`libssl.so.3`) or, where the host
/// has only that, OpenSSL 1.1 (`libssl.so.1.1`) is loaded at run time, so a server without TLS
/// never needs it. The certificate and key files are
/// re-read when they change (checked on each new connection), so renewals need no restart.
///
/// ```swift
/// var configuration = WPHTTPServer.Configuration(host: "::", port: 9090)
/// configuration.tls = WPTLSConfiguration(certificateFile: "/etc/wpexporter/tls.crt",
///                                      keyFile: "/etc/wpexporter/tls.key")
/// ```
public struct WPTLSConfiguration: Sendable, Equatable {
    /// Whether and how clients present certificates (the exporter-toolkit's `client_auth_type`).
    public enum ClientAuthentication: String, Sendable, Equatable, CaseIterable {
        /// No client certificate is asked for.
        case none = "NoClientCert"
        /// A certificate is asked for; any (or none) is accepted.
        case request = "RequestClientCert"
        /// A certificate is required but not verified.
        case requireAny = "RequireAnyClientCert"
        /// A certificate, when given, must be signed by the client CA.
        case verifyIfGiven = "VerifyClientCertIfGiven"
        /// A certificate signed by the client CA is required.
        case requireAndVerify = "RequireAndVerifyClientCert"

        /// Whether the policy checks certificates against ``WPTLSConfiguration/clientCAFile``.
        public var verifies: Bool { self == .verifyIfGiven || self == .requireAndVerify }

        var shimValue: Int32 {
            switch self {
            case .none: 0
            case .request: 1
            case .requireAny: 2
            case .verifyIfGiven: 3
            case .requireAndVerify: 4
            }
        }
    }

    /// A TLS protocol version, named as in the web configuration file (`TLS12`).
    public enum ProtocolVersion: String, Sendable, Equatable, Comparable, CaseIterable {
        /// `TLS10`: TLS 1.0.
        case tls10 = "TLS10"
        /// `TLS11`: TLS 1.1.
        case tls11 = "TLS11"
        /// `TLS12`: TLS 1.2.
        case tls12 = "TLS12"
        /// `TLS13`: TLS 1.3.
        case tls13 = "TLS13"

        var wireValue: Int32 {
            switch self {
            case .tls10: 0x0301
            case .tls11: 0x0302
            case .tls12: 0x0303
            case .tls13: 0x0304
            }
        }

        /// Whether `lhs` is an older version than `rhs`.
        public static func < (lhs: Self, rhs: Self) -> Bool { lhs.wireValue < rhs.wireValue }
    }

    /// PEM certificate chain (server certificate first).
    public var certificateFile: String
    /// PEM private key of the certificate.
    public var keyFile: String
    /// Client certificate policy; ``ClientAuthentication/none`` by default.
    public var clientAuthentication: ClientAuthentication = .none
    /// PEM bundle of CAs that sign client certificates; needed by the verifying policies.
    public var clientCAFile: String?
    /// Oldest protocol version accepted; TLS 1.2 by default.
    public var minimumVersion: ProtocolVersion = .tls12
    /// Newest protocol version accepted; `nil` for the newest OpenSSL supports.
    public var maximumVersion: ProtocolVersion?
    /// TLS 1.2 cipher suites by IANA name (`TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256`), as the
    /// exporter-toolkit spells them; empty for OpenSSL's secure default. TLS 1.3 suites are
    /// not configurable (as in Go).
    public var cipherSuites: [String] = []
    /// Prefer the server's cipher order over the client's.
    public var preferServerCipherSuites: Bool = true

    /// Creates settings with TLS 1.2 as the minimum and no client certificates.
    public init(certificateFile: String, keyFile: String) {
        self.certificateFile = certificateFile
        self.keyFile = keyFile
    }
}
