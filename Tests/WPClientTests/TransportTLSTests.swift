import Foundation
import Testing
import WPClient
import WPLogging
import WPTestSupport

/// Against a local HTTPS server with a self-signed certificate (made with `openssl` here):
/// verification fails by default with a `tls` error that says what to set; `ca_file` and
/// `skip_ssl_verify` both work, on Linux too.
@Suite(.serialized) struct TransportTLSTests {
    static let openssl = LocalServerProcess.executable("openssl")

    /// Generates a certificate for 127.0.0.1, starts `openssl s_server -www` on port 0, and
    /// runs `body` with the server's port and the certificate path.
    func withTLSServer(_ body: (Int, String) async throws -> Void) async throws {
        let openssl = try #require(Self.openssl)
        try await withTemporaryDirectory { directory in
            try runCommand(openssl, ["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", "key.pem", "-out", "cert.pem",
                                     "-days", "2", "-subj", "/CN=127.0.0.1",
                                     "-addext", "subjectAltName=IP:127.0.0.1,DNS:localhost"], in: directory)
            let server = try LocalServerProcess(
                executable: openssl,
                arguments: ["s_server", "-accept", "127.0.0.1:0", "-cert", "cert.pem", "-key", "key.pem", "-www"],
                directory: directory, portAfter: "ACCEPT 127.0.0.1:")
            defer { server.stop() }
            try await body(server.port, directory.appendingPathComponent("cert.pem").path)
        }
    }

    static func get(_ port: Int) -> TransportRequest {
        TransportRequest(method: "GET", url: URL(string: "https://127.0.0.1:\(port)/")!, timeout: .seconds(20))
    }

    static func expectCertificateAdvice(_ error: ClientError?, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(error?.kind == .tls, sourceLocation: sourceLocation)
        #expect(error?.message.contains("winpower.ca_file") == true, sourceLocation: sourceLocation)
        #expect(error?.message.contains("winpower.skip_ssl_verify") == true, sourceLocation: sourceLocation)
    }

    @Test(.enabled(if: openssl != nil, "openssl is not installed: cannot make a self-signed certificate"))
    func defaultVerificationFailsWithATLSError() async throws {
        try await withTLSServer { port, _ in
            // The default transport of a plain configuration: URLSession.
            var configuration = WinPowerHTTPClient.Configuration(
                baseURL: URL(string: "https://127.0.0.1:\(port)")!, username: "admin", password: "pw")
            configuration.apiTimeout = .seconds(20)
            let client = WinPowerHTTPClient(configuration: configuration, logger: .disabled)
            Self.expectCertificateAdvice(await clientError { try await client.fetchDevices() })
            // libcurl verifying against the system store fails the same way.
            Self.expectCertificateAdvice(await clientError { try await CurlTransport(tls: .system).send(Self.get(port)) })
        }
    }

    @Test(.enabled(if: openssl != nil, "openssl is not installed: cannot make a self-signed certificate"))
    func caFileSucceeds() async throws {
        try await withTLSServer { port, certificate in
            let response = try await CurlTransport(tls: .trust(caFile: certificate)).send(Self.get(port))
            #expect(response.status == 200)
            #expect(String(decoding: response.body, as: UTF8.self).contains("<HTML>"))
        }
    }

    @Test(.enabled(if: openssl != nil, "openssl is not installed: cannot make a self-signed certificate"))
    func skipVerificationSucceeds() async throws {
        try await withTLSServer { port, _ in
            let transport = CurlTransport(tls: .skip)
            for _ in 0..<2 { // the second request reuses the kept handle
                let response = try await transport.send(Self.get(port))
                #expect(response.status == 200)
            }
        }
    }

    /// `ca_file` and `skip_ssl_verify` select the libcurl transport (the one tested above);
    /// a plain configuration uses URLSession.
    @Test func configurationSelectsTheTransport() {
        var configuration = WinPowerHTTPClient.Configuration(
            baseURL: URL(string: "https://winpower.test")!, username: "u", password: "p")
        #expect(WinPowerHTTPClient.makeTransport(for: configuration) is URLSessionTransport)
        configuration.caFile = "/etc/ca.pem"
        #expect(WinPowerHTTPClient.makeTransport(for: configuration) is CurlTransport)
        configuration.caFile = nil
        configuration.skipSSLVerify = true
        #expect(WinPowerHTTPClient.makeTransport(for: configuration) is CurlTransport)
    }

    @Test(.enabled(if: openssl != nil, "openssl is not installed: cannot make a self-signed certificate"))
    func unreadableCAFileIsATLSErrorNamingTheSetting() async throws {
        try await withTLSServer { port, _ in
            let error = await clientError {
                try await CurlTransport(tls: .trust(caFile: "/nonexistent/ca.pem")).send(Self.get(port))
            }
            #expect(error?.kind == .tls)
            #expect(error?.message.contains("winpower.ca_file") == true)
        }
    }
}
