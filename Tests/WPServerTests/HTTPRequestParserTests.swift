import Testing
import WPTestThreads
@testable import WPServer

/// Parses `text` in one piece with small limits.
func parse(_ text: String, maxHeaderBytes: Int = 1024, maxHeaderCount: Int = 10,
           maxBodyBytes: Int = 64) -> HTTPParseResult {
    parseBytes(Array(text.utf8), maxHeaderBytes: maxHeaderBytes, maxHeaderCount: maxHeaderCount, maxBodyBytes: maxBodyBytes)
}

func parseBytes(_ bytes: [UInt8], maxHeaderBytes: Int = 1024, maxHeaderCount: Int = 10,
                maxBodyBytes: Int = 64) -> HTTPParseResult {
    var parser = HTTPRequestParser(limits: HTTPParserLimits(maxHeaderBytes: maxHeaderBytes,
                                                           maxHeaderCount: maxHeaderCount, maxBodyBytes: maxBodyBytes))
    return bytes.withUnsafeBytes { parser.parse($0) }
}

/// Feeds `text` one byte more at a time, as a slow client would; returns the first final result.
func parseIncrementally(_ text: String) -> HTTPParseResult {
    var parser = HTTPRequestParser(limits: HTTPParserLimits(maxHeaderBytes: 1024, maxHeaderCount: 10, maxBodyBytes: 64))
    let bytes = Array(text.utf8)
    for end in 1...bytes.count {
        let result = bytes[..<end].withUnsafeBytes { parser.parse($0) }
        if case .needMore = result { continue }
        return result
    }
    return .needMore(awaitingContinue: false)
}

func status(_ result: HTTPParseResult) -> Int? {
    if case .failure(let error) = result { return error.status }
    return nil
}

func parsed(_ result: HTTPParseResult) -> ParsedRequest? {
    if case .request(let request) = result { return request }
    return nil
}

@Suite(.ownThreads, .timeLimit(.minutes(3))) struct HTTPRequestParserTests {
    @Test func parsesSimpleGetWithRepeatedCaseInsensitiveHeaders() throws {
        let text = "GET /metrics?x=1 HTTP/1.1\r\nHost: a\r\nX-A: 1\r\nx-a:  2 \r\n\r\n"
        let request = try #require(parsed(parse(text)))
        #expect(request.consumed == text.utf8.count)
        #expect(request.keepAlive)
        #expect(request.request.method == "GET")
        #expect(request.request.path == "/metrics")
        #expect(request.request.query == "x=1")
        #expect(request.request.headers.values(for: "X-A") == ["1", "2"])
        #expect(parsed(parseIncrementally(text)) == request)
    }

    @Test func incompleteHeadNeedsMore() {
        #expect(parse("GET / HTTP/1.1\r\nHost: a\r\n") == .needMore(awaitingContinue: false))
        #expect(parse("GET / HT") == .needMore(awaitingContinue: false))
    }

    @Test func keepAliveRules() throws {
        #expect(try #require(parsed(parse("GET / HTTP/1.0\r\n\r\n"))).keepAlive == false)
        #expect(try #require(parsed(parse("GET / HTTP/1.0\r\nConnection: keep-alive\r\n\r\n"))).keepAlive)
        #expect(try #require(parsed(parse("GET / HTTP/1.1\r\nHost: a\r\nConnection: Close\r\n\r\n"))).keepAlive == false)
        #expect(try #require(parsed(parse("GET / HTTP/1.1\r\nHost: a\r\nConnection: foo, close\r\n\r\n"))).keepAlive == false)
    }

    @Test func contentLengthBody() throws {
        let text = "POST /x HTTP/1.1\r\nHost: a\r\nContent-Length: 5\r\n\r\nhelloGET"
        let request = try #require(parsed(parse(text)))
        #expect(request.request.body == Array("hello".utf8))
        #expect(request.consumed == text.utf8.count - 3)
        #expect(parse("POST /x HTTP/1.1\r\nHost: a\r\nContent-Length: 5\r\n\r\nhel") == .needMore(awaitingContinue: false))
        // Identical repeated values are one length (RFC 9112 §6.3).
        #expect(parsed(parse("POST /x HTTP/1.1\r\nHost: a\r\nContent-Length: 2\r\nContent-Length: 2\r\n\r\nab")) != nil)
    }

    @Test func chunkedBodyWithExtensionsAndTrailers() throws {
        let text = "POST /x HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n"
            + "5;ext=1\r\nhello\r\nA\r\n, world!!!\r\n0\r\nX-Trailer: t\r\n\r\n"
        let request = try #require(parsed(parse(text)))
        #expect(String(decoding: request.request.body, as: UTF8.self) == "hello, world!!!")
        #expect(request.consumed == text.utf8.count)
        #expect(parsed(parseIncrementally(text)) == request)
    }

    @Test func expectContinueIsSignalledOnceTheHeadIsComplete() {
        let head = "POST /x HTTP/1.1\r\nHost: a\r\nExpect: 100-continue\r\nContent-Length: 3\r\n\r\n"
        #expect(parse(head) == .needMore(awaitingContinue: true))
        #expect(parse(head + "a") == .needMore(awaitingContinue: false))
        #expect(parsed(parse(head + "abc")) != nil)
        #expect(status(parse("POST /x HTTP/1.1\r\nHost: a\r\nExpect: something\r\nContent-Length: 3\r\n\r\n")) == 417)
    }

    @Test func absoluteFormTargetUsesItsPath() throws {
        let request = try #require(parsed(parse("GET http://example.com/a/b?q=1 HTTP/1.1\r\nHost: example.com\r\n\r\n")))
        #expect(request.request.path == "/a/b")
        #expect(request.request.query == "q=1")
    }

    @Test func leadingEmptyLinesAreIgnored() {
        #expect(parsed(parse("\r\n\r\nGET / HTTP/1.1\r\nHost: a\r\n\r\n")) != nil)
    }

    @Test(arguments: [
        ("GET /\r\n\r\n", "request line without version"),
        ("GET  / HTTP/1.1\r\nHost: a\r\n\r\n", "double space"),
        ("GET / HTTP/1.1 extra\r\nHost: a\r\n\r\n", "four parts"),
        ("G(T / HTTP/1.1\r\nHost: a\r\n\r\n", "bad method"),
        ("GET x HTTP/1.1\r\nHost: a\r\n\r\n", "relative target"),
        ("GET / HTTX/1.1\r\nHost: a\r\n\r\n", "bad version"),
        ("GET / HTTP/1.1\r\n\r\n", "missing Host"),
        ("GET / HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n", "two Hosts"),
        ("GET / HTTP/1.1\nHost: a\r\n\r\n", "bare LF after request line"),
        ("GET / HTTP/1.1\r\nHost: a\n\r\n", "bare LF after header"),
        ("GET / HTTP/1.1\r\nHost: a\n\n", "bare LF head end"),
        ("GET / HTTP/1.1\r\nHost: a\rX: b\r\n\r\n", "bare CR"),
        ("GET / HTTP/1.1\r\nHost: a\r\nX: 1\r\n folded\r\n\r\n", "obs-fold space"),
        ("GET / HTTP/1.1\r\nHost: a\r\nX: 1\r\n\tfolded\r\n\r\n", "obs-fold tab"),
        ("GET / HTTP/1.1\r\nHost : a\r\n\r\n", "space before colon"),
        ("GET / HTTP/1.1\r\nHost: a\r\nNoColon\r\n\r\n", "no colon"),
        ("GET / HTTP/1.1\r\nHost: a\r\n: empty\r\n\r\n", "empty name"),
        ("GET / HTTP/1.1\r\nHost: a\r\nX: a\u{01}b\r\n\r\n", "control char in value"),
        ("GET / HTTP/1.1\r\nHost: a\r\nX: a\u{7F}b\r\n\r\n", "DEL in value"),
        ("GET /\u{00} HTTP/1.1\r\nHost: a\r\n\r\n", "NUL in target"),
        ("GET / HTTP/1.1\r\nHost: a\r\nX: a\u{00}b\r\n\r\n", "NUL in value"),
        ("POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n", "CL and TE"),
        ("POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\nContent-Length: 3\r\n\r\n", "TE and CL"),
        ("POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 3\r\nContent-Length: 4\r\n\r\nabcd", "conflicting CL"),
        ("POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 3, 4\r\n\r\nabcd", "conflicting CL list"),
        ("POST / HTTP/1.1\r\nHost: a\r\nContent-Length: -1\r\n\r\n", "negative CL"),
        ("POST / HTTP/1.1\r\nHost: a\r\nContent-Length: +3\r\n\r\nabc", "signed CL"),
        ("POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 0x3\r\n\r\nabc", "hex CL"),
        ("POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 99999999999999999999\r\n\r\n", "overflowing CL"),
        ("POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked, chunked\r\n\r\n", "chunked twice"),
        ("POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\nTransfer-Encoding: chunked\r\n\r\n", "chunked twice in two fields"),
        ("POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked, gzip\r\n\r\n", "chunked not last"),
        ("POST / HTTP/1.0\r\nTransfer-Encoding: chunked\r\n\r\n", "TE in HTTP/1.0"),
        ("POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n", "bad chunk size"),
        ("POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n3\nabc\r\n0\r\n\r\n", "bare LF in chunk size"),
        ("POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabcX\r\n0\r\n\r\n", "chunk data without CRLF"),
        ("POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n3 x\r\nabc\r\n0\r\n\r\n", "junk after chunk size"),
        ("POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n3;a\u{00}\r\nabc\r\n0\r\n\r\n", "NUL in chunk extension"),
        ("POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\nfffffffffffffffff\r\n", "chunk size overflow"),
        ("POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n folded: t\r\n\r\n", "folded trailer"),
    ])
    func rejectsMalformedWith400(text: String, what: String) {
        #expect(status(parse(text)) == 400, "\(what)")
        #expect(status(parseIncrementally(text)) == 400, "\(what), incrementally")
    }

    @Test func unsupportedTransferCodingsAre501() {
        #expect(status(parse("POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: gzip\r\n\r\n")) == 501)
        #expect(status(parse("POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: gzip, chunked\r\n\r\n")) == 501)
        #expect(status(parse("POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: identity\r\n\r\n")) == 501)
    }

    @Test func unsupportedVersionIs505() {
        #expect(status(parse("GET / HTTP/2.0\r\nHost: a\r\n\r\n")) == 505)
    }

    @Test func oversizedHeadIs431EvenBeforeItEnds() {
        let long = "GET / HTTP/1.1\r\nHost: a\r\nX: " + String(repeating: "a", count: 200) + "\r\n\r\n"
        #expect(status(parse(long, maxHeaderBytes: 100)) == 431)
        #expect(status(parse(String(long.prefix(150)), maxHeaderBytes: 100)) == 431)
        let many = "GET / HTTP/1.1\r\nHost: a\r\n" + (1...5).map { "X\($0): 1\r\n" }.joined() + "\r\n"
        #expect(status(parse(many, maxHeaderCount: 3)) == 431)
    }

    @Test func oversizedBodyIs413() {
        #expect(status(parse("POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 65\r\n\r\n", maxBodyBytes: 64)) == 413)
        let chunked = "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n40\r\n"
            + String(repeating: "a", count: 64) + "\r\n1\r\n"
        #expect(status(parse(chunked, maxBodyBytes: 64)) == 413)
    }

    @Test func oversizedTrailersAre431() {
        let text = "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n0\r\nX: "
            + String(repeating: "t", count: 200)
        // Trailers are body bytes on the wire too: with room for them, their own limit applies.
        #expect(status(parse(text, maxHeaderBytes: 100, maxBodyBytes: 1024)) == 431)
        #expect(status(parse(text, maxHeaderBytes: 100, maxBodyBytes: 64)) == 413)
    }

    @Test func errorsNameWhatWasWrong() {
        guard case .failure(let error) = parse("GET / HTTP/1.1\r\nHost: a\r\nBad Name: 1\r\n\r\n") else {
            Issue.record("expected a failure")
            return
        }
        #expect(error.reason == "header line 2: whitespace before colon")
    }
}
