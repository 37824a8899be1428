import Testing
import WPTestThreads
@testable import WPConfig

@Suite(.ownThreads, .timeLimit(.minutes(3))) struct WebConfigurationTests {
    static let hash = "$2b$10$QGYj4kx8vTH7Jm1VJ1h4AOlm8bGd0xRvGqIvQ0VvU6NQx6i4d3c1e"
    static let pem = [
        "/etc/wp/tls.crt": "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n",
        "/etc/wp/tls.key": "-----BEGIN PRIVATE KEY-----\nMIIE\n-----END PRIVATE KEY-----\n",
        "/etc/wp/ca.crt": "-----BEGIN CERTIFICATE-----\nMIIC\n-----END CERTIFICATE-----\n",
    ]

    static func load(_ text: String, files: [String: String] = pem, modes: [String: Int] = [:]) throws(ConfigurationError)
        -> WebConfiguration {
        var all = files
        all["/etc/wp/web.yml"] = text
        return try WebConfiguration.load(path: "/etc/wp/web.yml", files: .inMemory(all, modes: modes))
    }

    static func problems(_ text: String, files: [String: String] = pem) -> [String] {
        do {
            _ = try load(text, files: files)
            return []
        } catch {
            return error.problems.map(\.description)
        }
    }

    @Test func fullFileIsRead() throws {
        let web = try Self.load("""
            tls_server_config:
              cert_file: tls.crt
              key_file: /etc/wp/tls.key
              client_auth_type: RequireAndVerifyClientCert
              client_ca_file: ca.crt
              min_version: TLS13
              cipher_suites: [TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256]
              prefer_server_cipher_suites: false
            basic_auth_users:
              prometheus: \(Self.hash)
            http_server_config:
              headers:
                Strict-Transport-Security: max-age=31536000
            unauthenticated_paths: [/-/healthy]
            """)
        let tls = try #require(web.tlsServer)
        #expect(tls.certFile == "/etc/wp/tls.crt", "relative to the web configuration file")
        #expect(tls.keyFile == "/etc/wp/tls.key")
        #expect(tls.clientAuthType == "RequireAndVerifyClientCert")
        #expect(tls.clientCAFile == "/etc/wp/ca.crt")
        #expect(tls.minVersion == "TLS13")
        #expect(tls.maxVersion == nil)
        #expect(tls.cipherSuites == ["TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256"])
        #expect(!tls.preferServerCipherSuites)
        #expect(web.basicAuthUsers == ["prometheus": Self.hash])
        #expect(web.headers == [WebConfiguration.Header(name: "Strict-Transport-Security", value: "max-age=31536000")])
        #expect(web.unauthenticatedPaths == ["/-/healthy"])
    }

    @Test func defaultsAreTLS12AndNoClientCertificates() throws {
        let web = try Self.load("tls_server_config:\n  cert_file: tls.crt\n  key_file: tls.key\n")
        let tls = try #require(web.tlsServer)
        #expect(tls.minVersion == "TLS12")
        #expect(tls.clientAuthType == "NoClientCert")
        #expect(web.basicAuthUsers.isEmpty)
    }

    @Test func everyProblemIsListedWithItsPosition() {
        let problems = Self.problems("""
            tls_server_config:
              cert_file: missing.crt
              key_file: tls.key
              client_auth_type: RequireClientCert
              min_version: TLS14
              cipher_suites: [TLS_FAKE]
              curve_preferences: [X25519]
            basic_auth_users:
              alice: hunter2
            http_server_config:
              headers:
                Content-Length: "5"
            basic_auth_user: nobody
            unauthenticated_paths: [/metrics]
            """)
        #expect(problems == [
            #"/etc/wp/web.yml:6:19: tls_server_config.cipher_suites: unknown cipher suite "TLS_FAKE"; allowed: "#
                + WebConfiguration.cipherSuiteNames.sorted().joined(separator: ", "),
            "/etc/wp/web.yml:7:3: tls_server_config.curve_preferences: is not supported by wpexporter; use cert_file, key_file and client_ca_file",
            #"/etc/wp/web.yml:2:14: tls_server_config.cert_file: "/etc/wp/missing.crt" does not exist"#,
            #"/etc/wp/web.yml:4:21: tls_server_config.client_auth_type: "RequireClientCert" is not a client auth type; allowed: NoClientCert, RequestClientCert, RequireAnyClientCert, VerifyClientCertIfGiven, RequireAndVerifyClientCert"#,
            #"/etc/wp/web.yml:5:16: tls_server_config.min_version: "TLS14" is not a TLS version; allowed: TLS10, TLS11, TLS12, TLS13"#,
            "/etc/wp/web.yml:9:10: basic_auth_users.alice: is not a bcrypt hash; expected $2a$, $2b$ or $2y$, a cost of 04–31 and 53 characters (generate one with `htpasswd -nBC 10 USER`)",
            "/etc/wp/web.yml:12:5: http_server_config.headers.Content-Length: is set by the server and cannot be configured",
            #"/etc/wp/web.yml:13:1: basic_auth_user: unknown key; did you mean "basic_auth_users"? Allowed: tls_server_config, basic_auth_users, http_server_config, unauthenticated_paths"#,
            #"/etc/wp/web.yml:14:25: unauthenticated_paths: "/metrics" cannot be opened; allowed: /-/healthy, /health"#,
        ])
        #expect(!problems.joined().contains("hunter2"), "a password written instead of a hash is never echoed")
    }

    @Test func verifyingClientAuthNeedsAClientCA() {
        let problems = Self.problems("""
            tls_server_config:
              cert_file: tls.crt
              key_file: tls.key
              client_auth_type: RequireAndVerifyClientCert
            """)
        #expect(problems == ["/etc/wp/web.yml:4:21: tls_server_config.client_ca_file: is required when client_auth_type is RequireAndVerifyClientCert"])
    }

    @Test func certificateAndKeyMustBeReadablePEM() {
        var files = Self.pem
        files["/etc/wp/tls.key"] = "not a key"
        let problems = Self.problems("tls_server_config:\n  cert_file: tls.crt\n  key_file: tls.key\n", files: files)
        #expect(problems == [#"/etc/wp/web.yml:3:13: tls_server_config.key_file: "/etc/wp/tls.key" is not a PEM file holding a private key"#])
        let missingKey = Self.problems("tls_server_config:\n  cert_file: tls.crt\n")
        #expect(missingKey == ["/etc/wp/web.yml:1:1: tls_server_config.key_file: is required when tls_server_config is set"])
    }

    @Test func maxVersionOlderThanMinIsAnError() {
        let problems = Self.problems("tls_server_config:\n  cert_file: tls.crt\n  key_file: tls.key\n  max_version: TLS11\n")
        #expect(problems == ["/etc/wp/web.yml:4:16: tls_server_config.max_version: TLS11 is older than min_version TLS12"])
    }

    @Test func groupReadableKeyIsAWarning() throws {
        let web = try Self.load("tls_server_config:\n  cert_file: tls.crt\n  key_file: tls.key\n", modes: ["/etc/wp/tls.key": 0o644])
        #expect(web.warnings.map(\.description)
            == [#"/etc/wp/web.yml:3:13: tls_server_config.key_file: "/etc/wp/tls.key" holds a private key and is readable by other users (mode 0644); run chmod 600 /etc/wp/tls.key"#])
    }

    @Test func missingFileAndYAMLErrorsAreReported() {
        #expect(throws: ConfigurationError.self) { try WebConfiguration.load(path: "/nope.yml", files: .inMemory([:])) }
        let problems = Self.problems("tls_server_config:\n  cert_file: &anchor tls.crt\n")
        #expect(problems.count == 1)
        #expect(problems.first?.hasPrefix("/etc/wp/web.yml:2:") == true)
    }

    @Test func emptyFileMeansNothingChanges() throws {
        let web = try Self.load("")
        #expect(web.tlsServer == nil && web.basicAuthUsers.isEmpty && web.headers.isEmpty)
    }
}
