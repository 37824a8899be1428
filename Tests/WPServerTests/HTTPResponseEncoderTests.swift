import Foundation
import Testing
@testable import WPServer

@Suite struct HTTPResponseEncoderTests {
    let date = "Sun, 06 Nov 1994 08:49:37 GMT"

    func text(_ encoded: EncodedResponse) -> String { String(decoding: encoded.head + encoded.body, as: UTF8.self) }

    @Test func encodesStatusLineFramingAndDate() {
        let encoded = HTTPResponseEncoder.encode(.text("hello"), context: ResponseContext(), date: date, gzipMinimumBytes: 1024)
        #expect(text(encoded) == "HTTP/1.1 200 OK\r\nDate: \(date)\r\nContent-Type: text/plain; charset=utf-8\r\n"
            + "Content-Length: 5\r\n\r\nhello")
    }

    @Test func closeAndHTTP10KeepAliveAreAnnounced() {
        let close = HTTPResponseEncoder.encode(.text("x"), context: ResponseContext(keepAlive: false), date: date, gzipMinimumBytes: nil)
        #expect(text(close).contains("\r\nConnection: close\r\n"))
        let old = HTTPResponseEncoder.encode(.text("x"), context: ResponseContext(version: .http10), date: date, gzipMinimumBytes: nil)
        #expect(text(old).contains("\r\nConnection: keep-alive\r\n"))
    }

    @Test func handlerCanAskToClose() {
        var response = HTTPResponse.text("bye")
        response.headers.add(name: "Connection", value: "close")
        let encoded = text(HTTPResponseEncoder.encode(response, context: ResponseContext(), date: date, gzipMinimumBytes: nil))
        #expect(encoded.components(separatedBy: "Connection: close\r\n").count == 2)
    }

    @Test func headKeepsContentLengthButSendsNoBody() {
        let encoded = HTTPResponseEncoder.encode(.text("hello"), context: ResponseContext(isHead: true), date: date, gzipMinimumBytes: nil)
        #expect(encoded.body.isEmpty)
        #expect(text(encoded).hasSuffix("Content-Length: 5\r\n\r\n"))
    }

    @Test func noBodyStatusesCarryNoBody() {
        let encoded = HTTPResponseEncoder.encode(HTTPResponse(status: 204, body: [1, 2]), context: ResponseContext(),
                                                 date: date, gzipMinimumBytes: nil)
        #expect(encoded.body.isEmpty)
        #expect(!text(encoded).contains("Content-Length"))
    }

    @Test func handlerFramingAndInjectedFieldsAreDropped() {
        var response = HTTPResponse.text("abc")
        response.headers.add(name: "Content-Length", value: "999")
        response.headers.add(name: "Transfer-Encoding", value: "chunked")
        response.headers.add(name: "X-Evil", value: "a\r\nSet-Cookie: x=1")
        response.headers.add(name: "Bad Name", value: "1")
        let encoded = text(HTTPResponseEncoder.encode(response, context: ResponseContext(), date: date, gzipMinimumBytes: nil))
        #expect(encoded.contains("Content-Length: 3\r\n"))
        #expect(!encoded.contains("999"))
        #expect(!encoded.contains("chunked"))
        #expect(!encoded.contains("Set-Cookie"))
        #expect(!encoded.contains("Bad Name"))
    }

    @Test func gzipWhenAcceptedAndWorthIt() throws {
        let body = String(repeating: "metric_total 1\n", count: 200)
        let encoded = HTTPResponseEncoder.encode(.text(body), context: ResponseContext(acceptsGzip: true), date: date,
                                                 gzipMinimumBytes: 1024)
        #expect(text(encoded).contains("Content-Encoding: gzip\r\n"))
        #expect(text(encoded).contains("Vary: Accept-Encoding\r\n"))
        #expect(encoded.body.count < body.utf8.count)
        #expect(try #require(Gzip.decompress(encoded.body)) == Array(body.utf8))
    }

    @Test func noGzipWhenNotAcceptedTooSmallOrBinary() {
        let body = String(repeating: "a", count: 2000)
        let plain = HTTPResponseEncoder.encode(.text(body), context: ResponseContext(acceptsGzip: false), date: date, gzipMinimumBytes: 1024)
        #expect(!text(plain).contains("Content-Encoding"))
        let small = HTTPResponseEncoder.encode(.text("aaaa"), context: ResponseContext(acceptsGzip: true), date: date, gzipMinimumBytes: 1024)
        #expect(!text(small).contains("Content-Encoding"))
        let binary = HTTPResponseEncoder.encode(HTTPResponse(status: 200, headers: ["Content-Type": "image/png"], body: Array(body.utf8)),
                                                context: ResponseContext(acceptsGzip: true), date: date, gzipMinimumBytes: 1024)
        #expect(!text(binary).contains("Content-Encoding"))
    }

    @Test func preCompressedBodyIsNeverCompressedAgain() throws {
        let original = Array(String(repeating: "x", count: 5000).utf8)
        let gzipped = try #require(Gzip.compress(original))
        let response = HTTPResponse(status: 200, headers: ["Content-Type": "text/plain", "Content-Encoding": "gzip"], body: gzipped)
        let encoded = HTTPResponseEncoder.encode(response, context: ResponseContext(acceptsGzip: true), date: date, gzipMinimumBytes: 10)
        #expect(encoded.body == gzipped)
        #expect(text(encoded).components(separatedBy: "Content-Encoding").count == 2)
    }

    @Test(arguments: [
        ("gzip", true), ("GZIP", true), ("deflate, gzip;q=0.5", true), ("gzip;q=0", false), ("gzip; q=0.0", false),
        ("*", true), ("*;q=0", false), ("deflate", false), ("br, *;q=0, gzip", true), ("", false),
    ])
    func acceptEncodingNegotiation(value: String, accepted: Bool) {
        #expect(HTTPResponseEncoder.acceptsGzip(["Accept-Encoding": value]) == accepted)
    }

    @Test func dateIsIMFFixdate() {
        let now = HTTPDate().now()
        #expect(now.utf8.count == 29)
        #expect(now.hasSuffix(" GMT"))
    }
}
