import Foundation
import Testing
import WPTestThreads
import WPTestSupport
@testable import WPServer
import WPCompression

@Suite(.ownThreads, .timeLimit(.minutes(4))) struct HTTPResponseEncoderTests {
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
        var response = WPHTTPResponse.text("bye")
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
        let encoded = HTTPResponseEncoder.encode(WPHTTPResponse(status: 204, body: [1, 2]), context: ResponseContext(),
                                                 date: date, gzipMinimumBytes: nil)
        #expect(encoded.body.isEmpty)
        #expect(!text(encoded).contains("Content-Length"))
    }

    @Test func handlerFramingAndInjectedFieldsAreDropped() {
        var response = WPHTTPResponse.text("abc")
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

    @Test func varyNamesAcceptEncodingOnceWhateverTheHandlerSent() {
        let body = String(repeating: "metric_total 1\n", count: 200)
        func vary(_ handlerVary: String?, gzip: Bool) -> [String] {
            var response = WPHTTPResponse.text(body)
            if let handlerVary { response.headers.set(name: "Vary", value: handlerVary) }
            let encoded = text(HTTPResponseEncoder.encode(response, context: ResponseContext(acceptsGzip: gzip), date: date,
                                                          gzipMinimumBytes: 1024))
            return encoded.split(separator: "\r\n").filter { $0.lowercased().hasPrefix("vary:") }.map(String.init)
        }
        for gzip in [false, true] {
            #expect(vary("Accept, Accept-Encoding", gzip: gzip) == ["Vary: Accept, Accept-Encoding"])
            #expect(vary("accept-encoding", gzip: gzip) == ["Vary: accept-encoding"])
            #expect(vary("Accept", gzip: gzip) == ["Vary: Accept, Accept-Encoding"])
            #expect(vary("*", gzip: gzip) == ["Vary: *"])
            #expect(vary(nil, gzip: gzip) == ["Vary: Accept-Encoding"])
        }
    }

    @Test func noGzipWhenNotAcceptedTooSmallOrBinary() {
        let body = String(repeating: "a", count: 2000)
        let plain = HTTPResponseEncoder.encode(.text(body), context: ResponseContext(acceptsGzip: false), date: date, gzipMinimumBytes: 1024)
        #expect(!text(plain).contains("Content-Encoding"))
        let small = HTTPResponseEncoder.encode(.text("aaaa"), context: ResponseContext(acceptsGzip: true), date: date, gzipMinimumBytes: 1024)
        #expect(!text(small).contains("Content-Encoding"))
        let binary = HTTPResponseEncoder.encode(WPHTTPResponse(status: 200, headers: ["Content-Type": "image/png"], body: Array(body.utf8)),
                                                context: ResponseContext(acceptsGzip: true), date: date, gzipMinimumBytes: 1024)
        #expect(!text(binary).contains("Content-Encoding"))
    }

    @Test func preCompressedBodyIsNeverCompressedAgain() throws {
        let original = Array(String(repeating: "x", count: 5000).utf8)
        let gzipped = try #require(Gzip.compress(original))
        let response = WPHTTPResponse(status: 200, headers: ["Content-Type": "text/plain", "Content-Encoding": "gzip"], body: gzipped)
        let encoded = HTTPResponseEncoder.encode(response, context: ResponseContext(acceptsGzip: true), date: date, gzipMinimumBytes: 10)
        #expect(encoded.body == gzipped)
        #expect(text(encoded).components(separatedBy: "Content-Encoding").count == 2)
    }

    @Test(arguments: [
        ("gzip", true), ("GZIP", true), ("x-gzip", true), ("deflate, gzip;q=0.5", true), ("gzip;q=0", false),
        ("gzip; q=0.0", false), ("gzip;q=0.001", true), ("gzip;q=1.000", true),
        ("*", true), ("*;q=0", false), ("deflate", false), ("br, *;q=0, gzip", true), ("", false), ("identity", false),
        // An invalid qvalue makes its item unacceptable.
        ("gzip;q=abc", false), ("gzip;q=2", false), ("gzip;q=-1", false), ("gzip;q=0.0001", false), ("gzip;q=1.5", false),
        ("*;q=abc", false),
        // gzip listed twice takes its highest weight: the order never matters.
        ("gzip;q=0, gzip", true), ("gzip, gzip;q=0", true), ("gzip;q=0, x-gzip;q=0", false),
        // gzip listed decides over `*`.
        ("*, gzip;q=0", false), ("*;q=0, gzip;q=0.1", true),
    ])
    func acceptEncodingNegotiation(value: String, accepted: Bool) {
        #expect(ContentCoding.acceptsGzip(["Accept-Encoding": value]) == accepted, "\(value)")
        #expect(ContentCoding.acceptsGzip([value]) == accepted, "\(value)")
    }

    /// Over a socket, the encoder compresses a response exactly when `ContentCoding` accepts
    /// gzip (the rule WPExporter's `/metrics` follows for its pre-compressed bytes).
    @Test func theEncoderFollowsContentCodingOverTheWire() async throws {
        try await withTestServer(EchoHandler()) { port in
            for header in ["gzip", "gzip;q=0", "gzip;q=abc", "gzip;q=0, gzip", "gzip, gzip;q=0", "*, gzip;q=0", "identity"] {
                let client = try await TestHTTPClient.connect(port: port)
                defer { client.close() }
                try await client.send("GET /text HTTP/1.1\r\nHost: x\r\nAccept-Encoding: \(header)\r\n\r\n")
                let response = try await client.readResponse()
                #expect((response.header("Content-Encoding") == "gzip") == ContentCoding.acceptsGzip([header]), "\(header)")
            }
        }
    }

    @Test func errorResponsesTellBrowsersNotToSniff() {
        let error = HTTPResponseEncoder.encode(.text("bad request: unknown target \"<script>\"\n", status: 400),
                                               context: ResponseContext(), date: date, gzipMinimumBytes: nil)
        #expect(text(error).contains("X-Content-Type-Options: nosniff\r\n"))
        let ok = HTTPResponseEncoder.encode(.text("ok"), context: ResponseContext(), date: date, gzipMinimumBytes: nil)
        #expect(!text(ok).contains("X-Content-Type-Options"))
        var own = WPHTTPResponse.text("gone", status: 404)
        own.headers.set(name: "X-Content-Type-Options", value: "nosniff")
        let once = HTTPResponseEncoder.encode(own, context: ResponseContext(), date: date, gzipMinimumBytes: nil)
        #expect(text(once).components(separatedBy: "X-Content-Type-Options").count == 2, "set once, not twice")
    }

    @Test func everyAcceptEncodingFieldCounts() {
        var headers: WPHTTPHeaders = ["Accept-Encoding": "br"]
        headers.add(name: "Accept-Encoding", value: "gzip;q=0.2")
        #expect(ContentCoding.acceptsGzip(headers))
        headers.add(name: "accept-encoding", value: "gzip;q=0")
        #expect(ContentCoding.acceptsGzip(headers), "the highest weight wins across fields too")
        #expect(!ContentCoding.acceptsGzip(["Accept-Encoding": "br", "Accept": "gzip"]))
    }

    @Test func dateIsIMFFixdate() {
        let now = HTTPDate().now()
        #expect(now.utf8.count == 29)
        #expect(now.hasSuffix(" GMT"))
    }
}
