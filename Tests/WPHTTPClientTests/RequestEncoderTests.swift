import FoundationEssentials
import Testing
import WPTestThreads
@testable import WPHTTPClient

/// Request bytes and URL checks, as pure functions.
@Suite(.ownThreads, .timeLimit(.minutes(3))) struct RequestEncoderTests {
    func target(_ text: String) throws -> RequestTarget {
        try RequestTarget(try #require(URL(string: text)))
    }

    @Test func encodesFramingHeadersAndDropsTheCallersOnes() throws {
        let request = HTTPClientRequest(
            method: "POST", url: try #require(URL(string: "http://user:pw@example.test:8081/api/v1/login?x=1#frag")),
            headers: [("Accept", "application/json"), ("Host", "evil"), ("Content-Length", "99"), ("Connection", "close")],
            body: Array("{}".utf8))
        let bytes = try RequestEncoder.encode(request, target: try target("http://user:pw@example.test:8081/api/v1/login?x=1#frag"),
                                              userAgent: "wpexporter/1.0")
        #expect(String(decoding: bytes, as: UTF8.self)
                == "POST /api/v1/login?x=1 HTTP/1.1\r\nHost: example.test:8081\r\nAccept: application/json\r\n"
                + "User-Agent: wpexporter/1.0\r\nContent-Length: 2\r\n\r\n{}")
    }

    @Test func callersUserAgentWinsAndGetHasNoContentLength() throws {
        let request = HTTPClientRequest(url: try #require(URL(string: "http://h")), headers: [("user-agent", "mine")])
        let text = String(decoding: try RequestEncoder.encode(request, target: try target("http://h"), userAgent: "default"),
                          as: UTF8.self)
        #expect(text == "GET / HTTP/1.1\r\nHost: h\r\nuser-agent: mine\r\n\r\n")
    }

    @Test func headerInjectionIsRejectedWithoutEchoingTheValue() throws {
        let secret = "Bearer tok3n"
        let request = HTTPClientRequest(url: try #require(URL(string: "http://h/")),
                                        headers: [("Authorization", secret + "\r\nX-Evil: 1")])
        #expect {
            try RequestEncoder.encode(request, target: try target("http://h/"), userAgent: nil)
        } throws: { error in
            let error = try #require(error as? HTTPClientError)
            return error.kind == .invalidRequest && error.detail.contains("Authorization") && !"\(error)".contains("tok3n")
        }
    }

    @Test func targetsAndHostHeaders() throws {
        #expect(try target("http://[::1]:8080/a%20b?q=%2F").hostHeader == "[::1]:8080")
        #expect(try target("http://[::1]:8080/a%20b?q=%2F").host == "::1")
        #expect(try target("http://[::1]:8080/a%20b?q=%2F").pathAndQuery == "/a%20b?q=%2F")
        #expect(try target("HTTP://Example.test:80").hostHeader == "Example.test")
        #expect(try target("https://example.test/x").port == 443)
        #expect(try target("https://example.test:8443/x").curlURL == "https://example.test:8443/x")
    }

    @Test func unsupportedSchemesAndMissingHostsAreRejected() {
        #expect(throws: HTTPClientError.self) { try target("ftp://example.test/secret") }
        #expect((try? target("ftp://example.test/secret")) == nil)
        do {
            _ = try target("ftp://example.test/secret?token=abc")
        } catch let error as HTTPClientError {
            #expect(error.kind == .unsupportedScheme)
            #expect(!error.detail.contains("secret") && !error.detail.contains("token"))
        } catch {
            Issue.record("unexpected \(error)")
        }
        #expect((try? target("http:///path")) == nil)
    }
}
