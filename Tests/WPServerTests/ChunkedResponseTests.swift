import Foundation
import Testing
import WPTestThreads
@testable import WPServer

/// `WPHTTPResponse.chunked`: the body framed with `Transfer-Encoding: chunked`, as servers that
/// stream their replies send it (the WinPower simulator imitates Spring Boot this way).
@Suite(.ownThreads, .timeLimit(.minutes(3))) struct ChunkedResponseTests {
    let date = "Sun, 06 Nov 1994 08:49:37 GMT"

    func encode(_ response: WPHTTPResponse, _ context: ResponseContext = ResponseContext(), gzip: Int? = nil) -> String {
        let encoded = HTTPResponseEncoder.encode(response, context: context, date: date, gzipMinimumBytes: gzip)
        return String(decoding: encoded.head + encoded.body + encoded.bodySuffix, as: UTF8.self)
    }

    @Test func aChunkedBodyHasNoContentLengthAndEndsWithTheLastChunk() {
        let text = encode(WPHTTPResponse(status: 200, headers: ["Content-Type": "application/json"],
                                       body: Array("{\"a\":".utf8), bodySuffix: Array("1}".utf8), chunked: true))
        #expect(text == "HTTP/1.1 200 OK\r\nDate: \(date)\r\nContent-Type: application/json\r\n"
            + "Transfer-Encoding: chunked\r\n\r\n7\r\n{\"a\":1}\r\n0\r\n\r\n")
    }

    @Test func largeBodiesAreSplitIntoChunksThatDecodeToTheBody() throws {
        let body = (0..<(WPHTTPResponse.chunkSize * 2 + 100)).map { UInt8(ascii: "a") + UInt8($0 % 26) }
        let encoded = HTTPResponseEncoder.encode(WPHTTPResponse(status: 200, body: body, chunked: true),
                                                 context: ResponseContext(), date: date, gzipMinimumBytes: nil)
        #expect(encoded.bodySuffix.isEmpty)
        var decoded: [UInt8] = []
        var sizes: [Int] = []
        var rest = encoded.body[...]
        while true {
            let line = try #require(rest.firstRange(of: [13, 10]))
            let size = try #require(Int(String(decoding: rest[..<line.lowerBound], as: UTF8.self), radix: 16))
            rest = rest[line.upperBound...]
            sizes.append(size)
            if size == 0 { break }
            decoded.append(contentsOf: rest.prefix(size))
            rest = rest.dropFirst(size)
            #expect(rest.starts(with: [13, 10]))
            rest = rest.dropFirst(2)
        }
        #expect(Array(rest) == [13, 10])
        #expect(decoded == body)
        #expect(sizes == [WPHTTPResponse.chunkSize, WPHTTPResponse.chunkSize, 100, 0])
    }

    @Test func http10HeadAndBodilessStatusesAreNotChunked() {
        let response = WPHTTPResponse(status: 200, body: Array("hello".utf8), chunked: true)
        let old = encode(response, ResponseContext(version: .http10))
        #expect(old.contains("Content-Length: 5\r\n") && !old.contains("Transfer-Encoding"))
        #expect(old.hasSuffix("\r\n\r\nhello"))
        let head = encode(response, ResponseContext(isHead: true))
        #expect(head.hasSuffix("Transfer-Encoding: chunked\r\n\r\n"))
        let noContent = encode(WPHTTPResponse(status: 204, body: [1], chunked: true))
        #expect(!noContent.contains("Transfer-Encoding") && !noContent.contains("Content-Length"))
    }

    @Test func aGzippedBodyIsChunkedAfterCompression() {
        let body = Array(String(repeating: "winpower ", count: 400).utf8)
        let encoded = HTTPResponseEncoder.encode(WPHTTPResponse(status: 200, headers: ["Content-Type": "text/plain"],
                                                              body: body, chunked: true),
                                                 context: ResponseContext(acceptsGzip: true), date: date, gzipMinimumBytes: 1024)
        let head = String(decoding: encoded.head, as: UTF8.self)
        #expect(head.contains("Content-Encoding: gzip\r\n") && head.contains("Transfer-Encoding: chunked\r\n"))
        #expect(encoded.body.count < body.count)
        #expect(encoded.body.suffix(5) == Array("0\r\n\r\n".utf8))
    }
}
