import Foundation
import Testing
import WPTestThreads
import WPLogging
@testable import WPServer
import WPTestSupport

/// HTTPS through the listener, against `curl`, with a throwaway PKI made by `openssl`.
@Suite(.ownThreads, .timeLimit(.minutes(4)), .enabled(if: TLSTestCertificates.openssl != nil && TLSTestCertificates.curl != nil,
                                         "openssl or curl is not installed: cannot make certificates or speak HTTPS"))
struct TLSServerTests {
    static func configuration(_ pki: TLSTestCertificates,
                              _ adjust: (inout WPTLSConfiguration) -> Void = { _ in }) -> WPHTTPServer.Configuration {
        var tls = WPTLSConfiguration(certificateFile: pki.serverCertificate, keyFile: pki.serverKey)
        adjust(&tls)
        var configuration = WPHTTPServer.Configuration(host: "127.0.0.1", port: 0)
        configuration.tls = tls
        return configuration
    }

    static let hello = HandlerFunction { request in .text("hello over \(request.path)\n") }

    @Test func httpsRequestIsAnswered() async throws {
        let pki = try TLSTestCertificates.make()
        defer { pki.remove() }
        try await withTestServer(Self.hello, configuration: Self.configuration(pki)) { port in
            let result = try await TLSTestTools.curl(port: port, path: "/metrics", caFile: pki.caCertificate)
            #expect(result.standardOutput == "200\n", "curl: \(result.standardError)")
        }
    }

    @Test func plainHTTPToTheTLSPortGetsA400AndTheServerKeepsServing() async throws {
        let pki = try TLSTestCertificates.make()
        defer { pki.remove() }
        try await withTestServer(Self.hello, configuration: Self.configuration(pki)) { port in
            let client = try await TestHTTPClient.connect(port: port)
            defer { client.close() }
            try await client.send("GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n")
            let response = try await client.readResponse()
            #expect(response.status == 400)
            #expect(response.text.contains("HTTP request to an HTTPS server"))
            #expect(await client.isClosedByServer())
            let result = try await TLSTestTools.curl(port: port, caFile: pki.caCertificate)
            #expect(result.standardOutput == "200\n", "curl: \(result.standardError)")
        }
    }

    @Test func aStalledHandshakeDoesNotBlockOtherConnections() async throws {
        let pki = try TLSTestCertificates.make()
        defer { pki.remove() }
        try await withTestServer(Self.hello, configuration: Self.configuration(pki)) { port in
            let stalled = try await TestHTTPClient.connect(port: port)
            defer { stalled.close() }
            try await stalled.send([0x16, 0x03, 0x01])  // the start of a ClientHello, then nothing
            let result = try await TLSTestTools.curl(port: port, caFile: pki.caCertificate)
            #expect(result.standardOutput == "200\n", "curl: \(result.standardError)")
        }
    }

    @Test func minimumVersionIsTLS12ByDefaultAndConfigurable() async throws {
        let pki = try TLSTestCertificates.make()
        defer { pki.remove() }
        #expect(WPTLSConfiguration(certificateFile: "c", keyFile: "k").minimumVersion == .tls12)
        let openssl = try #require(TLSTestCertificates.openssl)
        func handshake(_ port: Int, _ version: String) async throws -> Bool {
            let result = try await TLSTestTools.run(openssl, ["s_client", "-connect", "127.0.0.1:\(port)", version,
                                                             "-CAfile", pki.caCertificate])
            return result.status == 0 && result.standardOutput.contains("Verify return code: 0")
        }
        try await withTestServer(Self.hello, configuration: Self.configuration(pki)) { port in
            let tls12 = try await handshake(port, "-tls1_2"), tls13 = try await handshake(port, "-tls1_3")
            #expect(tls12 && tls13)
        }
        try await withTestServer(Self.hello, configuration: Self.configuration(pki) { $0.minimumVersion = .tls13 }) { port in
            let tls12 = try await handshake(port, "-tls1_2"), tls13 = try await handshake(port, "-tls1_3")
            #expect(!tls12, "TLS 1.2 refused when min_version is TLS13")
            #expect(tls13)
        }
    }

    @Test func verifyIfGivenAcceptsNoCertificateButRejectsAForeignOne() async throws {
        let pki = try TLSTestCertificates.make()
        defer { pki.remove() }
        let configuration = Self.configuration(pki) {
            $0.clientAuthentication = .verifyIfGiven
            $0.clientCAFile = pki.caCertificate
        }
        try await withTestServer(Self.hello, configuration: configuration) { port in
            let none = try await TLSTestTools.curl(port: port, caFile: pki.caCertificate)
            #expect(none.standardOutput == "200\n", "curl: \(none.standardError)")
            let stranger = try await TLSTestTools.curl(port: port, caFile: pki.caCertificate,
                                                       clientCertificate: (pki.strangerCertificate, pki.strangerKey))
            #expect(stranger.standardOutput != "200\n")
        }
    }

    @Test func clientCertificateModeRejectsMissingAndForeignCertificates() async throws {
        let pki = try TLSTestCertificates.make()
        defer { pki.remove() }
        let configuration = Self.configuration(pki) {
            $0.clientAuthentication = .requireAndVerify
            $0.clientCAFile = pki.caCertificate
        }
        try await withTestServer(Self.hello, configuration: configuration) { port in
            let none = try await TLSTestTools.curl(port: port, caFile: pki.caCertificate)
            #expect(none.standardOutput != "200\n")
            #expect(none.status != 0)
            let stranger = try await TLSTestTools.curl(port: port, caFile: pki.caCertificate,
                                                       clientCertificate: (pki.strangerCertificate, pki.strangerKey))
            #expect(stranger.standardOutput != "200\n")
            #expect(stranger.status != 0)
            let client = try await TLSTestTools.curl(port: port, caFile: pki.caCertificate,
                                                     clientCertificate: (pki.clientCertificate, pki.clientKey))
            #expect(client.standardOutput == "200\n", "curl: \(client.standardError)")
        }
    }

    @Test func rotatedCertificateIsServedToNewConnections() async throws {
        let pki = try TLSTestCertificates.make()
        defer { pki.remove() }
        let sink = InMemoryLogSink()
        try await withTestServer(Self.hello, configuration: Self.configuration(pki), logger: sink.logger()) { port in
            let before = try await TLSTestTools.curl(port: port, caFile: pki.caCertificate, verbose: true)
            #expect(before.standardOutput == "200\n")
            #expect(before.standardError.contains("CN=server-1"))
            try pki.reissueServer(commonName: "server-2")
            let after = try await TLSTestTools.curl(port: port, caFile: pki.caCertificate, verbose: true)
            #expect(after.standardOutput == "200\n", "curl: \(after.standardError)")
            #expect(after.standardError.contains("CN=server-2"))
            #expect(!after.standardError.contains("CN=server-1"))
        }
        #expect(sink.allText.contains("tls certificate reloaded"))
    }

    @Test func aBrokenRenewalKeepsThePreviousCertificate() async throws {
        let pki = try TLSTestCertificates.make()
        defer { pki.remove() }
        let sink = InMemoryLogSink()
        try await withTestServer(Self.hello, configuration: Self.configuration(pki), logger: sink.logger()) { port in
            try "not a certificate\n".write(toFile: pki.serverCertificate, atomically: true, encoding: .utf8)
            let result = try await TLSTestTools.curl(port: port, caFile: pki.caCertificate, verbose: true)
            #expect(result.standardOutput == "200\n", "curl: \(result.standardError)")
            #expect(result.standardError.contains("CN=server-1"))
        }
        #expect(sink.allText.contains("tls certificate reload failed"))
    }

    /// A certificate swapped for a 2 GB sparse file, or for a FIFO, is refused before OpenSSL
    /// reads it (on the loop thread): the previous certificate stays, and the loop answers.
    @Test(arguments: ["sparse", "fifo"])
    func aHugeOrFIFOCertificateIsRefusedUnreadAndThePreviousOneStays(kind: String) async throws {
        let pki = try TLSTestCertificates.make()
        defer { pki.remove() }
        let sink = InMemoryLogSink()
        try await withTestServer(Self.hello, configuration: Self.configuration(pki), logger: sink.logger()) { port in
            try FileManager.default.removeItem(atPath: pki.serverCertificate)
            if kind == "fifo" {
                #expect(mkfifo(pki.serverCertificate, 0o644) == 0)
            } else {
                #expect(FileManager.default.createFile(atPath: pki.serverCertificate, contents: nil))
                #expect(truncate(pki.serverCertificate, 2 << 30) == 0)
            }
            let result = try await TLSTestTools.curl(port: port, caFile: pki.caCertificate, verbose: true)
            #expect(result.standardOutput == "200\n", "curl: \(result.standardError)")
            #expect(result.standardError.contains("CN=server-1"))
        }
        let expected = kind == "fifo" ? "is not a regular file" : "is larger than 1 MiB (1048576 bytes), the most a PEM file may hold"
        #expect(sink.allText.contains("tls certificate reload failed"))
        #expect(sink.allText.contains(expected))
    }

    @Test func unreadableCertificateFailsAtStartNamingTheFile() async throws {
        var configuration = WPHTTPServer.Configuration(host: "127.0.0.1", port: 0)
        configuration.tls = WPTLSConfiguration(certificateFile: "/nonexistent/tls.crt", keyFile: "/nonexistent/tls.key")
        let server = WPHTTPServer(configuration: configuration, handler: Self.hello, logger: .disabled)
        do {
            try await server.run()
            Issue.record("run() should have failed")
        } catch let error as ServerError {
            guard case .system(let operation, let reason) = error else {
                Issue.record("unexpected \(error)")
                return
            }
            #expect(operation == "TLS setup")
            #expect(reason.contains("cert_file"))
        }
    }
}

extension TLSServerTests {
    @Test func basicAuthOverHTTPS() async throws {
        let pki = try TLSTestCertificates.make()
        defer { pki.remove() }
        let hash = try #require(BCrypt.hash(password: "s3cret", setting: "$2b$04$abcdefghijklmnopqrstuu"))
        let authenticator = try WPBasicAuthenticator(users: ["prometheus": hash])
        let handler = BasicAuthHandler(wrapping: Self.hello, authenticator: authenticator)
        try await withTestServer(handler, configuration: Self.configuration(pki)) { port in
            let right = try await TLSTestTools.curl(port: port, caFile: pki.caCertificate, user: "prometheus:s3cret")
            #expect(right.standardOutput == "200\n", "curl: \(right.standardError)")
            let wrong = try await TLSTestTools.curl(port: port, caFile: pki.caCertificate, user: "prometheus:guess")
            let unknown = try await TLSTestTools.curl(port: port, caFile: pki.caCertificate, user: "nobody:guess")
            #expect(wrong.standardOutput == "401\n")
            #expect(unknown.standardOutput == "401\n")
        }
        #expect(authenticator.bcryptVerifications == 3)
    }
}

extension TLSServerTests {
    @Test func aClientLeavingMidResponseDoesNotHurtTheServer() async throws {
        let pki = try TLSTestCertificates.make()
        defer { pki.remove() }
        let big = [UInt8](repeating: 0x61, count: 8 << 20)
        let handler = HandlerFunction { request in
            request.path == "/big" ? WPHTTPResponse(status: 200, headers: ["Content-Type": "application/octet-stream"], body: big)
                : .text("ok\n")
        }
        try await withTestServer(handler, configuration: Self.configuration(pki)) { port in
            let curl = try #require(TLSTestCertificates.curl)
            for _ in 0..<3 {
                // curl gives up after the headers (the body exceeds --max-filesize) and closes
                // while the server is still writing: the write fails with EPIPE, not SIGPIPE.
                _ = try await TLSTestTools.run(curl, ["-sS", "--cacert", pki.caCertificate, "--max-filesize", "1000",
                                                      "-o", "/dev/null", "https://127.0.0.1:\(port)/big"])
            }
            let result = try await TLSTestTools.curl(port: port, caFile: pki.caCertificate)
            #expect(result.standardOutput == "200\n", "curl: \(result.standardError)")
        }
    }
}

extension TLSServerTests {
    @Test func aStalledHandshakeIsClosedByTheHeadTimeout() async throws {
        let pki = try TLSTestCertificates.make()
        defer { pki.remove() }
        var configuration = Self.configuration(pki)
        configuration.headTimeout = .milliseconds(100)
        try await withTestServer(Self.hello, configuration: configuration) { port in
            let stalled = try await TestHTTPClient.connect(port: port)
            defer { stalled.close() }
            try await stalled.send([0x16, 0x03, 0x01])
            #expect(await stalled.isClosedByServer())
        }
    }
}
