import FoundationEssentials
import Testing
import WPTestThreads
@testable import WPClient
import WPHTTPClient

/// Every `HTTPClientError` kind becomes a ``ClientError`` that says which setting to check.
@Suite(.ownThreads, .timeLimit(.minutes(3))) struct TransportErrorMappingTests {
    static func mapped(_ kind: HTTPClientError.Kind, _ detail: String = "detail") -> ClientError {
        HTTPClientTransport.map(HTTPClientError(kind, detail))
    }

    @Test func certificateAndHandshakeFailuresNameBothTLSSettings() {
        for kind in [HTTPClientError.Kind.certificate, .tls] {
            let error = Self.mapped(kind, "self-signed certificate")
            #expect(error.kind == .tls)
            #expect(error.message.contains("winpower.ca_file") && error.message.contains("winpower.skip_ssl_verify"))
            #expect(error.message.contains("self-signed certificate"))
        }
        let caFile = Self.mapped(.caFile, "cannot use the CA file '/etc/ca.pem': error setting certificate file")
        #expect(caFile.kind == .tls)
        #expect(caFile.message == "cannot use winpower.ca_file '/etc/ca.pem': error setting certificate file")
    }

    @Test func aPlainHTTPPortSaysSoAndSkipVerifyIsNeverSuggestedWhenAlreadySet() {
        let detail = "OpenSSL/3.0.13: error:0A00010B:SSL routines::wrong version number"
        for tls in [HTTPClientTransport.TLSVerification.system, .skip] {
            let error = HTTPClientTransport.map(HTTPClientError(.tls, detail), tls: tls)
            #expect(error.kind == .tls)
            #expect(error.message.contains("likely speaks plain HTTP") && error.message.contains("http://"))
            #expect(!error.message.contains("skip_ssl_verify: true"))
        }
        let skipped = HTTPClientTransport.map(HTTPClientError(.tls, "handshake failure"), tls: .skip)
        #expect(!skipped.message.contains("set winpower.ca_file or winpower.skip_ssl_verify"))
        #expect(skipped.message.contains("winpower.skip_ssl_verify is set"))
    }

    @Test func connectionProblemsNameTheBaseURL() {
        for kind in [HTTPClientError.Kind.connectionRefused, .hostNotFound, .unsupportedScheme, .malformedResponse,
                     .invalidRequest] {
            let error = Self.mapped(kind)
            #expect(error.kind == .network, "\(kind)")
            #expect(error.message.contains("winpower.base_url"), "\(kind)")
        }
        #expect(Self.mapped(.connectionRefused).message.contains("that WinPower is running"))
    }

    @Test func timeoutsNameTheAPITimeoutAndTheRestIsNetwork() {
        let timeout = Self.mapped(.timeout)
        #expect(timeout.kind == .timeout && timeout.message.contains("winpower.api_timeout"))
        for kind in [HTTPClientError.Kind.network, .tooLarge, .libraryUnavailable, .cancelled] {
            #expect(Self.mapped(kind).kind == .network, "\(kind)")
        }
        #expect(Self.mapped(.libraryUnavailable).message.contains("libcurl"))
    }

    @Test func cancellationIsRethrownAsCancellationError() async throws {
        let transport = HTTPClientTransport()
        let request = TransportRequest(method: "GET", url: try #require(URL(string: "http://127.0.0.1:1/")))
        let task = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return try await transport.send(request)
        }
        await #expect(throws: CancellationError.self) { try await task.value }
    }
}
