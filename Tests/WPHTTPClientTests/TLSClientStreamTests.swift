import Testing
import WPRuntime
import WPServer
import WPTestSupport
import WPTestThreads
@testable import WPHTTPClient

/// TLS over the client's own sockets against the HTTP server's TLS listener (OpenSSL on both
/// sides), with a throwaway PKI made by `openssl`: the certificate and its name are checked,
/// each refusal says why, and a client certificate is shown when asked for.
@Suite(.ownThreads, .timeLimit(.minutes(3)), .enabled(if: TLSTestCertificates.openssl != nil,
                                                       "openssl is not installed: cannot make certificates"))
struct TLSClientStreamTests {
    static let hello = HandlerFunction { request in .text("hello over \(request.path)\n") }

    static func server(_ pki: TLSTestCertificates, requireClient: Bool = false) -> WPHTTPServer.Configuration {
        var tls = WPTLSConfiguration(certificateFile: pki.serverCertificate, keyFile: pki.serverKey)
        if requireClient {
            tls.clientAuthentication = .requireAndVerify
            tls.clientCAFile = pki.caCertificate
        }
        var configuration = WPHTTPServer.Configuration(host: "127.0.0.1", port: 0)
        configuration.tls = tls
        return configuration
    }

    /// `GET /tls` over a TLS stream to 127.0.0.1:`port` named `serverName`: the response's bytes.
    /// The stream blocks its thread: it runs on a thread of its own, never on Swift's pool (where
    /// the test bodies of the ThreadSanitizer run are, beside the server's handlers).
    static func get(port: Int, context: TLSClientContext, serverName: String = "127.0.0.1") async throws -> String {
        let result: Result<String, any Error> = await withCheckedContinuation { continuation in
            do {
                try NamedThread.start(name: "tls-test-client") {
                    continuation.resume(returning: Result { try blockingGet(port: port, context: context, serverName: serverName) })
                }
            } catch {
                continuation.resume(returning: .failure(error))
            }
        }
        return try result.get()
    }

    private static func blockingGet(port: Int, context: TLSClientContext, serverName: String) throws -> String {
        let cancellation = ExchangeCancellation()
        let deadline = Deadline(after: .seconds(60))
        let socket = try ClientSocket.connect(host: "127.0.0.1", port: port, deadline: deadline, cancellation: cancellation)
        let stream = try TLSClientStream(socket: socket, context: context, serverName: serverName, deadline: deadline,
                                         cancellation: cancellation, authority: "test")
        defer { stream.close(detachingFrom: cancellation) }
        try stream.write(Array("GET /tls HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n".utf8), deadline: deadline,
                         cancellation: cancellation, authority: "test")
        var response: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4_096)
        while true {
            let count = try buffer.withUnsafeMutableBytes { raw in
                try stream.readAvailable(into: raw, authority: "test")
            }
            guard let count else {
                try socket.wait(for: stream.readWaitsFor, deadline: deadline, cancellation: cancellation, doing: "reading")
                continue
            }
            if count == 0 { break }
            response += buffer.prefix(count)
        }
        return String(decoding: response, as: UTF8.self)
    }

    @Test func aCertificateOfTheTrustedCAForTheAddressIsAccepted() async throws {
        let pki = try TLSTestCertificates.make()
        defer { pki.remove() }
        let context = try TLSClientContext(verification: .trust(caFile: pki.caCertificate))
        try await withTestServer(Self.hello, configuration: Self.server(pki)) { port in
            let response = try await Self.get(port: port, context: context)
            #expect(response.hasPrefix("HTTP/1.1 200"))
            #expect(response.hasSuffix("hello over /tls\n"))
        }
    }

    @Test func aCertificateOfAnUntrustedCAIsRefusedSayingWhy() async throws {
        let pki = try TLSTestCertificates.make()
        defer { pki.remove() }
        // The system's store does not hold the throwaway CA; neither does a bundle of another CA.
        for context in [try TLSClientContext(verification: .system),
                        try TLSClientContext(verification: .trust(caFile: pki.directory + "/other-ca.crt"))] {
            try await withTestServer(Self.hello, configuration: Self.server(pki)) { port in
                let error = await #expect(throws: HTTPClientError.self) { try await Self.get(port: port, context: context) }
                #expect(error?.kind == .certificate)
                #expect(error?.detail.contains("certificate was refused: unable to get local issuer certificate") == true,
                        "\(String(describing: error))")
            }
        }
    }

    @Test func aCertificateForAnotherNameIsRefusedUnlessChecksAreSkipped() async throws {
        let pki = try TLSTestCertificates.make()
        defer { pki.remove() }
        let trusted = try TLSClientContext(verification: .trust(caFile: pki.caCertificate))
        let skipping = try TLSClientContext(verification: .skip)
        try await withTestServer(Self.hello, configuration: Self.server(pki)) { port in
            // The certificate names 127.0.0.1 only.
            for name in ["localhost", "127.0.0.2", "::1"] {
                let error = await #expect(throws: HTTPClientError.self) {
                    try await Self.get(port: port, context: trusted, serverName: name)
                }
                #expect(error?.kind == .certificate)
                #expect(error?.detail.contains("mismatch") == true, "\(name): \(String(describing: error))")
            }
            let response = try await Self.get(port: port, context: skipping, serverName: "localhost")
            #expect(response.hasSuffix("hello over /tls\n"))
        }
    }

    @Test func aClientCertificateIsShownWhenGiven() async throws {
        let pki = try TLSTestCertificates.make()
        defer { pki.remove() }
        let withCertificate = try TLSClientContext(verification: .trust(caFile: pki.caCertificate),
                                                   certificateFile: pki.clientCertificate, keyFile: pki.clientKey)
        let without = try TLSClientContext(verification: .trust(caFile: pki.caCertificate))
        try await withTestServer(Self.hello, configuration: Self.server(pki, requireClient: true)) { port in
            let response = try await Self.get(port: port, context: withCertificate)
            #expect(response.hasSuffix("hello over /tls\n"))
            // Without one the server ends the connection (in TLS 1.3 after the client's side of
            // the handshake is done): no response either way.
            await #expect(throws: HTTPClientError.self) {
                let answer = try await Self.get(port: port, context: without)
                if answer.isEmpty { throw HTTPClientError(.network, "closed without a response") }
            }
        }
    }

    @Test func filesThatCannotBeUsedAreRefusedWhenTheContextIsMade() throws {
        let pki = try TLSTestCertificates.make()
        defer { pki.remove() }
        let missing = #expect(throws: HTTPClientError.self) {
            try TLSClientContext(verification: .trust(caFile: pki.directory + "/none.pem"))
        }
        #expect(missing?.kind == .caFile)
        #expect(missing?.detail.hasPrefix("cannot load the CA file") == true, "\(String(describing: missing))")
        let notCertificates = #expect(throws: HTTPClientError.self) {
            try TLSClientContext(verification: .trust(caFile: pki.serverKey))
        }
        #expect(notCertificates?.kind == .caFile)
        let mismatched = #expect(throws: HTTPClientError.self) {
            try TLSClientContext(verification: .system, certificateFile: pki.clientCertificate, keyFile: pki.serverKey)
        }
        // OpenSSL compares the key with the certificate as it loads it: "key values mismatch".
        #expect(mismatched?.detail.hasPrefix("cannot load the client key") == true && mismatched?.detail.contains("mismatch") == true,
                "\(String(describing: mismatched))")
    }
}
