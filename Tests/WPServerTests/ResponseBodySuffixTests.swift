import Testing
@testable import WPServer
import WPTestSupport

/// A response body in two parts (`body` then `bodySuffix`) is framed and sent as one body.
@Suite(.timeLimit(.minutes(1))) struct ResponseBodySuffixTests {
    let date = "Sun, 06 Nov 1994 08:49:37 GMT"

    @Test func contentLengthCoversBothParts() {
        let response = HTTPResponse(status: 200, headers: ["Content-Type": "text/plain"], body: Array("snapshot\n".utf8),
                                    bodySuffix: Array("tail\n".utf8))
        let encoded = HTTPResponseEncoder.encode(response, context: ResponseContext(), date: date, gzipMinimumBytes: nil)
        let head = String(decoding: encoded.head, as: UTF8.self)
        #expect(head.contains("\r\nContent-Length: 14\r\n"))
        #expect(encoded.body == Array("snapshot\n".utf8))
        #expect(encoded.bodySuffix == Array("tail\n".utf8))
        #expect(response.bodyCount == 14)
    }

    @Test func headAndNoBodyStatusesDropBothParts() {
        let response = HTTPResponse(status: 200, body: [1, 2, 3], bodySuffix: [4, 5])
        let head = HTTPResponseEncoder.encode(response, context: ResponseContext(isHead: true), date: date, gzipMinimumBytes: nil)
        #expect(head.body.isEmpty && head.bodySuffix.isEmpty)
        #expect(String(decoding: head.head, as: UTF8.self).contains("Content-Length: 5\r\n"))
        var noContent = response
        noContent.status = 204
        let encoded = HTTPResponseEncoder.encode(noContent, context: ResponseContext(), date: date, gzipMinimumBytes: nil)
        #expect(encoded.body.isEmpty && encoded.bodySuffix.isEmpty)
    }

    @Test func serverGzipCompressesBothPartsAsOneBody() throws {
        let first = Array(String(repeating: "metric_a 1\n", count: 300).utf8)
        let second = Array(String(repeating: "metric_b 2\n", count: 10).utf8)
        let response = HTTPResponse(status: 200, headers: ["Content-Type": "text/plain"], body: first, bodySuffix: second)
        let encoded = HTTPResponseEncoder.encode(response, context: ResponseContext(acceptsGzip: true), date: date,
                                                 gzipMinimumBytes: 1024)
        #expect(String(decoding: encoded.head, as: UTF8.self).contains("Content-Encoding: gzip\r\n"))
        #expect(encoded.bodySuffix.isEmpty)
        #expect(try #require(Gzip.decompress(encoded.body)) == first + second)
    }

    /// A compressible body sent to a client that does not accept gzip goes out as the
    /// handler's two arrays, uncompressed and uncopied.
    @Test func plainResponseSharesBothPartsWithoutCopying() {
        let first = Array(String(repeating: "metric_a 1\n", count: 300).utf8)
        let second = Array(String(repeating: "metric_b 2\n", count: 10).utf8)
        let response = HTTPResponse(status: 200, headers: ["Content-Type": "text/plain"], body: first, bodySuffix: second)
        let encoded = HTTPResponseEncoder.encode(response, context: ResponseContext(acceptsGzip: false), date: date,
                                                 gzipMinimumBytes: 1024)
        let head = String(decoding: encoded.head, as: UTF8.self)
        #expect(!head.contains("Content-Encoding"))
        #expect(head.contains("\r\nVary: Accept-Encoding\r\n"))
        #expect(encoded.body.withUnsafeBufferPointer(\.baseAddress) == first.withUnsafeBufferPointer(\.baseAddress))
        #expect(encoded.bodySuffix.withUnsafeBufferPointer(\.baseAddress) == second.withUnsafeBufferPointer(\.baseAddress))
    }

    @Test func unwrittenBytesResumeAtEveryOffset() {
        let encoded = EncodedResponse(head: [1, 2, 3], body: [4, 5], bodySuffix: [6, 7, 8, 9], status: 200)
        let whole: [UInt8] = Array(1...9)
        for offset in 0..<encoded.count {
            // Sending only the first buffer each time must still walk through every byte in order.
            let (first, second) = encoded.withUnwritten(from: offset) { (Array($0), Array($1)) }
            #expect(!first.isEmpty, "offset \(offset)")
            #expect(Array(whole[offset...]).starts(with: first + second), "offset \(offset)")
        }
        let emptyBody = EncodedResponse(head: [1], body: [], bodySuffix: [2, 3], status: 200)
        #expect(emptyBody.withUnwritten(from: 1) { first, _ in Array(first) } == [2, 3])
    }

    @Test func largeSharedBodyAndSuffixArriveIntactOverASocket() async throws {
        // Several megabytes: the kernel accepts them in many partial writes that cross from
        // the head into the body and from the body into the suffix.
        var shared = [UInt8](repeating: 0, count: 3 << 20)
        for index in shared.indices { shared[index] = UInt8(truncatingIfNeeded: index &* 31) }
        let snapshot = shared
        let handler = HandlerFunction { request in
            HTTPResponse(status: 200, headers: ["Content-Type": "application/octet-stream"], body: snapshot,
                         bodySuffix: Array("suffix for \(request.path)".utf8))
        }
        try await withTestServer(handler) { port in
            let client = try await TestHTTPClient.connect(port: port)
            defer { client.close() }
            for path in ["/a", "/b"] {
                try await client.send(get(path))
                let response = try await client.readResponse()
                #expect(response.status == 200)
                #expect(response.body.count == snapshot.count + "suffix for \(path)".utf8.count)
                #expect(response.body.prefix(snapshot.count).elementsEqual(snapshot))
                #expect(String(decoding: response.body.suffix(from: snapshot.count), as: UTF8.self) == "suffix for \(path)")
            }
        }
    }
}
