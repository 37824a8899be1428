import Testing
import WPTestThreads
@testable import WPServer

/// The codec's side of the hardening: wire-byte body limits, linear chunked decoding, bodies
/// refused from the head, saturating deadlines.
@Suite(.ownThreads, .timeLimit(.minutes(3))) struct BodyLimitTests {
    static let limits = HTTPParserLimits(maxHeaderBytes: 1024, maxHeaderCount: 10, maxBodyBytes: 64)
    static let chunkedHead = "POST /upload HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n"

    @Test func chunkExtensionsCountAgainstTheBodyLimit() {
        // Three decoded bytes, but 3 × 46 bytes of framing on the wire: over a 64-byte limit.
        let chunk = "1;" + String(repeating: "a", count: 40) + "\r\nX\r\n"
        let text = Self.chunkedHead + chunk + chunk + chunk + "0\r\n\r\n"
        #expect(status(parse(text)) == 413)
        // The same body without extensions fits.
        let plain = parsed(parse(Self.chunkedHead + "1\r\nX\r\n1\r\nY\r\n1\r\nZ\r\n0\r\n\r\n"))
        #expect(plain?.request.body == Array("XYZ".utf8))
    }

    @Test func chunkLargerThanTheLimitIsRefusedFromItsSizeLine() {
        // Only the size line has arrived; the answer does not wait for the data. The line's
        // own 4 bytes count: 0x3c = 60 more still fit in 64, 0x3d = 61 do not.
        #expect(status(parse(Self.chunkedHead + "3d\r\n")) == 413)
        #expect(status(parse(Self.chunkedHead + "3c\r\n")) == nil)
    }

    @Test func chunkedDecodingExaminesEveryByteOnceWhateverTheReadSize() throws {
        var body = ""
        for index in 0..<200 { body += "3;ext=\(index)\r\nabc\r\n" }
        let bytes = Array((Self.chunkedHead + body + "0\r\nTrailer: x\r\n\r\n").utf8)
        let limits = HTTPParserLimits(maxHeaderBytes: 1024, maxHeaderCount: 10, maxBodyBytes: 1 << 20)
        var whole = HTTPRequestParser(limits: limits)
        let once = try #require(parsed(bytes.withUnsafeBytes { whole.parse($0) }))
        var slow = HTTPRequestParser(limits: limits)
        var result = HTTPParseResult.needMore(awaitingContinue: false)
        for end in 1...bytes.count {
            result = bytes[..<end].withUnsafeBytes { slow.parse($0) }
            if case .needMore = result { continue }
            break
        }
        #expect(parsed(result) == once)
        #expect(once.request.body.count == 600)
        // One byte per call, 1,500-odd calls: still each byte examined at most once.
        #expect(slow.examined <= bytes.count)
        #expect(whole.examined <= bytes.count)
    }

    @Test func bodiesAreRefusedFromTheHeadWhenTheRouteTakesNone() {
        var parser = HTTPRequestParser(limits: Self.limits, acceptsBody: { $0.path != "/metrics" })
        let head = Array("POST /metrics HTTP/1.1\r\nHost: a\r\nContent-Length: 10\r\n\r\n".utf8)
        // 413 although 10 bytes are within the limit and none has arrived: the head alone decides.
        let result = head.withUnsafeBytes { parser.parse($0) }
        #expect(status(result) == 413)
        if case .failure(let error) = result { #expect(error.reason.contains("takes no request body")) }
        var chunked = HTTPRequestParser(limits: Self.limits, acceptsBody: { _ in false })
        #expect(status(Array(Self.chunkedHead.utf8).withUnsafeBytes { chunked.parse($0) }) == 413)
        // Without a body the same route is fine.
        var get = HTTPRequestParser(limits: Self.limits, acceptsBody: { _ in false })
        #expect(parsed(Array("GET /metrics HTTP/1.1\r\nHost: a\r\n\r\n".utf8).withUnsafeBytes { get.parse($0) }) != nil)
    }

    @Test func routerTellsWhichRequestsTakeABody() {
        var bodiless = WPRouter()
        bodiless.get("/metrics", takesBody: false) { _ in .text("m") }
        #expect(!bodiless.acceptsBody(WPHTTPRequest(method: "GET", target: "/metrics")))
        #expect(!bodiless.acceptsBody(WPHTTPRequest(method: "HEAD", target: "/metrics")))
        // No route takes a body: neither do unknown paths or methods.
        #expect(!bodiless.acceptsBody(WPHTTPRequest(method: "POST", target: "/metrics")))
        #expect(!bodiless.acceptsBody(WPHTTPRequest(method: "PUT", target: "/other")))
        var mixed = bodiless
        mixed.post("/upload") { _ in .text("ok") }
        #expect(mixed.acceptsBody(WPHTTPRequest(method: "POST", target: "/upload")))
        #expect(!mixed.acceptsBody(WPHTTPRequest(method: "GET", target: "/metrics")))
        #expect(mixed.acceptsBody(WPHTTPRequest(method: "PUT", target: "/other")))
    }

    @Test func deadlinesSaturateInsteadOfOverflowing() {
        // --server.read_timeout 2562047h passes validation: just under Int64.max nanoseconds.
        let huge = Duration.seconds(2_562_047 * 3600)
        #expect(Int64(3_000_000_000_000).adding(huge) == .max)
        #expect(Int64.max.adding(.seconds(1)) == .max)
        #expect(Duration.seconds(Int64.max).nanoseconds == .max)
        #expect(Int64(0).adding(.seconds(Int64.max)) == .max)
        #expect(Int64(5).adding(.seconds(1)) == 1_000_000_005)
    }

    @Test func connectionCapLeavesDescriptorsForTheRestOfTheProcess() {
        var configuration = WPHTTPServer.Configuration()
        configuration.maxConnections = 10_000
        configuration.reservedDescriptors = 64
        #expect(HTTPConnectionDriver.connectionLimit(configuration: configuration, openFilesLimit: 128) == 64)
        #expect(HTTPConnectionDriver.connectionLimit(configuration: configuration, openFilesLimit: 1 << 20) == 10_000)
        #expect(HTTPConnectionDriver.connectionLimit(configuration: configuration, openFilesLimit: 10) == 1)
    }
}
