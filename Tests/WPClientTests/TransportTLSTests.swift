import Foundation
import Testing
import WPTestThreads
import WPClient
import WPHTTPClient
import WPLogging
import WPTestSupport

/// Against a local HTTPS server with a self-signed certificate (made with `openssl` here):
/// verification fails by default with a `tls` error that says what to set; `ca_file` and
/// `skip_ssl_verify` both work, on Linux too.
@Suite(.ownThreads, .serialized, .timeLimit(.minutes(4))) struct TransportTLSTests {
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

    static let python = LocalServerProcess.executable("python3")

    /// A minimal WinPower over TLS (login + one-device list, HTTP/1.1 keep-alive) in python3.
    static let miniWinPower = """
    import http.server, ssl, sys
    class H(http.server.BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"
        def send(self, code, body):
            data = body.encode()
            self.send_response(code)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)
        def do_POST(self):
            self.rfile.read(int(self.headers.get("Content-Length", 0)))
            self.send(200, '{"code":"000000","message":"OK","data":{"token":"tls-token"}}')
        def do_GET(self):
            if self.headers.get("Authorization") != "Bearer tls-token":
                return self.send(401, '{"code":"401","message":"token expired","data":"Full authentication is required to access this resource(/api/v1/deviceData/detail/list)"}')
            self.send(200, '{"total":1,"pageSize":20,"currentPage":1,"data":[{"assetDevice":{"id":"tls-device"},'
                           '"realtime":{"loadTotalWatt":"195"}}],"code":"000000","msg":"OK"}')
        def log_message(self, *args):
            pass
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), H)
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(sys.argv[1], sys.argv[2])
    # The handshake happens in each request's thread, not in accept(): one stalled handshake
    # must not hold every later connection.
    server.socket = context.wrap_socket(server.socket, server_side=True, do_handshake_on_connect=False)
    print("PORT %d" % server.server_address[1], flush=True)
    server.serve_forever()
    """

    /// The whole client over HTTPS: default fails with `tls`; `ca_file` and
    /// `skip_ssl_verify` read the device (twice, on one kept connection).
    @Test(.enabled(if: openssl != nil && python != nil, "openssl or python3 is not installed: no local HTTPS WinPower"))
    func wholeClientOverHTTPS() async throws {
        let openssl = try #require(Self.openssl), python = try #require(Self.python)
        try await withTemporaryDirectory { directory in
            try runCommand(openssl, ["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", "key.pem", "-out", "cert.pem",
                                     "-days", "2", "-subj", "/CN=127.0.0.1",
                                     "-addext", "subjectAltName=IP:127.0.0.1,DNS:localhost"], in: directory)
            let server = try LocalServerProcess(executable: python, arguments: ["-u", "-c", Self.miniWinPower, "cert.pem", "key.pem"],
                                                directory: directory, portAfter: "PORT ")
            defer { server.stop() }
            func client(_ configure: (inout WinPowerHTTPClient.Configuration) -> Void) -> WinPowerHTTPClient {
                var configuration = WinPowerHTTPClient.Configuration(
                    baseURL: URL(string: "https://127.0.0.1:\(server.port)/")!, username: "admin", password: "pw")
                // Bounds for a loaded machine, not timing assertions: the whole fetch and each
                // request (a TLS handshake with a fresh key can take seconds on a busy core).
                configuration.timeout = .seconds(120)
                configuration.apiTimeout = .seconds(120)
                configure(&configuration)
                return WinPowerHTTPClient(configuration: configuration, logger: .disabled)
            }
            Self.expectCertificateAdvice(await clientError { try await client { _ in }.fetchDevices() })
            let certificate = directory.appendingPathComponent("cert.pem").path
            for verified in [client { $0.caFile = certificate }, client { $0.skipSSLVerify = true }] {
                for _ in 0..<2 {
                    let readout = try await verified.fetchDevices()
                    #expect(readout.devices.map(\.id) == ["tls-device"])
                    #expect(readout.devices.first?.realtime.loadTotalWatt == 195)
                }
            }
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
            // The default transport of a plain configuration: system trust.
            var configuration = WinPowerHTTPClient.Configuration(
                baseURL: URL(string: "https://127.0.0.1:\(port)")!, username: "admin", password: "pw")
            configuration.apiTimeout = .seconds(20)
            let client = WinPowerHTTPClient(configuration: configuration, logger: .disabled)
            Self.expectCertificateAdvice(await clientError { try await client.fetchDevices() })
            // The transport on its own fails the same way.
            Self.expectCertificateAdvice(await clientError { try await HTTPClientTransport(tls: .system).send(Self.get(port)) })
        }
    }

    @Test(.enabled(if: openssl != nil, "openssl is not installed: cannot make a self-signed certificate"))
    func caFileSucceeds() async throws {
        try await withTLSServer { port, certificate in
            let response = try await HTTPClientTransport(tls: .trust(caFile: certificate)).send(Self.get(port))
            #expect(response.status == 200)
            #expect(String(decoding: response.body, as: UTF8.self).contains("<HTML>"))
        }
    }

    @Test(.enabled(if: openssl != nil, "openssl is not installed: cannot make a self-signed certificate"))
    func skipVerificationSucceeds() async throws {
        try await withTLSServer { port, _ in
            let transport = HTTPClientTransport(tls: .skip)
            for _ in 0..<2 { // the second request reuses the kept handle
                let response = try await transport.send(Self.get(port))
                #expect(response.status == 200)
            }
        }
    }

    /// `ca_file` and `skip_ssl_verify` select the certificate checking of the transport (the
    /// one tested above); a plain configuration uses the system trust store.
    @Test func configurationSelectsTheCertificateChecking() {
        var configuration = WinPowerHTTPClient.Configuration(
            baseURL: URL(string: "https://winpower.test")!, username: "u", password: "p")
        func tls() -> HTTPClientTransport.TLSVerification? {
            (WinPowerHTTPClient.makeTransport(for: configuration) as? HTTPClientTransport)?.tls
        }
        #expect(tls() == .system)
        configuration.caFile = "/etc/ca.pem"
        #expect(tls() == .trust(caFile: "/etc/ca.pem"))
        configuration.caFile = nil
        configuration.skipSSLVerify = true
        #expect(tls() == .skip)
    }

    @Test(.enabled(if: openssl != nil, "openssl is not installed: cannot make a self-signed certificate"))
    func unreadableCAFileIsATLSErrorNamingTheSetting() async throws {
        try await withTLSServer { port, _ in
            let error = await clientError {
                try await HTTPClientTransport(tls: .trust(caFile: "/nonexistent/ca.pem")).send(Self.get(port))
            }
            #expect(error?.kind == .tls)
            #expect(error?.message.contains("winpower.ca_file") == true)
        }
    }
}
