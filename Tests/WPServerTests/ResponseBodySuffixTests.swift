import Testing
import WPTestThreads
@testable import WPServer
import WPTestSupport
import WPCompression

/// A response body in two parts (`body` then `bodySuffix`) is framed and sent as one body.
@Suite(.ownThreads, .timeLimit(.minutes(4))) struct ResponseBodySuffixTests {
    let date = "Sun, 06 Nov 1994 08:49:37 GMT"

    @Test func contentLengthCoversBothParts() {
        let response = WPHTTPResponse(status: 200, headers: ["Content-Type": "text/plain"], body: Array("snapshot\n".utf8),
                                    bodySuffix: Array("tail\n".utf8))
        let encoded = HTTPResponseEncoder.encode(response, context: ResponseContext(), date: date, gzipMinimumBytes: nil)
        let head = String(decoding: encoded.head, as: UTF8.self)
        #expect(head.contains("\r\nContent-Length: 14\r\n"))
        #expect(encoded.body == Array("snapshot\n".utf8))
        #expect(encoded.bodySuffix == Array("tail\n".utf8))
        #expect(response.bodyCount == 14)
    }

    @Test func headAndNoBodyStatusesDropBothParts() {
        let response = WPHTTPResponse(status: 200, body: [1, 2, 3], bodySuffix: [4, 5])
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
        let response = WPHTTPResponse(status: 200, headers: ["Content-Type": "text/plain"], body: first, bodySuffix: second)
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
        let response = WPHTTPResponse(status: 200, headers: ["Content-Type": "text/plain"], body: first, bodySuffix: second)
        let encoded = HTTPResponseEncoder.encode(response, context: ResponseContext(acceptsGzip: false), date: date,
                                                 gzipMinimumBytes: 1024)
        let head = String(decoding: encoded.head, as: UTF8.self)
        #expect(!head.contains("Content-Encoding"))
        #expect(head.contains("\r\nVary: Accept-Encoding\r\n"))
        #expect(encoded.body.withUnsafeBufferPointer(\.baseAddress) == first.withUnsafeBufferPointer(\.baseAddress))
        #expect(encoded.bodySuffix.withUnsafeBufferPointer(\.baseAddress) == second.withUnsafeBufferPointer(\.baseAddress))
    }

    @Test func unwrittenBytesResumeAtEveryOffset() {
        let encoded = EncodedResponse(head: [1, 2, 3], body: [4, 5], bodyParts: [[], [6], [7, 8]], bodySuffix: [9, 10],
                                      status: 200)
        let whole: [UInt8] = Array(1...10)
        #expect(encoded.count == 10)
        for offset in 0..<encoded.count {
            let buffers = encoded.withUnwritten(from: offset) { $0.map { Array($0) } }
            #expect(buffers.allSatisfy { !$0.isEmpty }, "offset \(offset): empty pieces are skipped")
            #expect(buffers.flatMap { $0 } == Array(whole[offset...]), "offset \(offset)")
        }
        // Writing only the first buffer each time, through the cursor, still walks every byte in order.
        var cursor = EncodedResponse.Cursor()
        var sent: [UInt8] = []
        while sent.count < encoded.count {
            let first = encoded.withUnwritten(from: cursor) { Array($0[0].prefix(1)) }
            sent += first
            encoded.advance(&cursor, by: first.count)
        }
        #expect(sent == whole)
        let emptyBody = EncodedResponse(head: [1], body: [], bodySuffix: [2, 3], status: 200)
        #expect(emptyBody.withUnwritten(from: 1) { $0.map { Array($0) } } == [[2, 3]])
    }

    /// Bytes allocated and filled once, freed on deinit: stable storage for body parts.
    final class Stable: StableBytes {
        nonisolated(unsafe) let storage: UnsafeMutableRawBufferPointer
        init(_ bytes: [UInt8]) {
            storage = .allocate(byteCount: bytes.count, alignment: 1)
            storage.copyBytes(from: bytes)
        }
        deinit { storage.deallocate() }
        var stableBytes: UnsafeRawBufferPointer { UnsafeRawBufferPointer(storage) }
    }

    @Test func bodyPartsPointIntoTheirStorageAndJoinInOrder() {
        let storage = Stable([10, 11, 12, 13, 14, 15])
        var parts: HTTPBodyParts = [[1, 2], []]
        parts.append(storage, range: 4..<6)
        parts.append(storage, range: 0..<2)
        parts.append(storage, range: 3..<3)
        #expect(parts.count == 5 && parts.byteCount == 6)
        #expect(parts.buffers == [[1, 2], [], [14, 15], [10, 11], []])
        #expect(parts.joined == [1, 2, 14, 15, 10, 11])
        #expect(parts.piece(2).baseAddress == storage.stableBytes.baseAddress.map { $0 + 4 }, "not copied")
        #expect(HTTPBodyParts().isEmpty && HTTPBodyParts().byteCount == 0)
        #expect(parts == HTTPBodyParts([[1, 2], [], [14, 15], [10, 11], []]))
        #expect(parts != HTTPBodyParts([[1, 2, 14, 15, 10, 11]]), "same bytes, other pieces")
    }

    /// A write is given at most `maxBuffersPerWrite` buffers; the rest follow in later writes.
    @Test func aWriteGathersAtMostItsLimitOfBuffers() {
        let parts = (0..<(2 * EncodedResponse.maxBuffersPerWrite + 5)).map { [UInt8(truncatingIfNeeded: $0)] }
        let encoded = EncodedResponse(head: [0xFF], body: [], bodyParts: HTTPBodyParts(parts), status: 200)
        var cursor = EncodedResponse.Cursor()
        var sent: [UInt8] = []
        var writes = 0
        while sent.count < encoded.count {
            writes += 1
            let buffers = encoded.withUnwritten(from: cursor) { $0.map { Array($0) } }
            #expect(buffers.count <= EncodedResponse.maxBuffersPerWrite)
            let bytes = buffers.flatMap { $0 }
            sent += bytes
            encoded.advance(&cursor, by: bytes.count)
        }
        #expect(sent == [0xFF] + parts.flatMap { $0 })
        #expect(writes == 3)
        // Large pieces: gathering stops once the buffers hold gatherBytesPerWrite bytes.
        let large = [UInt8](repeating: 7, count: EncodedResponse.gatherBytesPerWrite * 3 / 4)
        let big = EncodedResponse(head: [], body: [], bodyParts: HTTPBodyParts([large, large, large]), status: 200)
        #expect(big.withUnwritten(from: 0) { $0.map(\.count) } == [large.count, large.count])
        // A connection that takes two buffers a write (TLS) is given two.
        #expect(encoded.withUnwritten(from: EncodedResponse.Cursor(), limit: 2) { $0.map { Array($0) } } == [[0xFF], [0]])
    }

    @Test func bodyPartsAreFramedCompressedAndChunkedAsOneBody() throws {
        let parts = (0..<50).map { Array("metric_\($0) \($0)\n".utf8) }
        let whole = Array("# HELP\n".utf8) + parts.flatMap { $0 } + Array("tail\n".utf8)
        let response = WPHTTPResponse(status: 200, headers: ["Content-Type": "text/plain"], body: Array("# HELP\n".utf8),
                                    bodyParts: HTTPBodyParts(parts), bodySuffix: Array("tail\n".utf8))
        #expect(response.bodyCount == whole.count)
        #expect(response.wholeBody == whole)
        let plain = HTTPResponseEncoder.encode(response, context: ResponseContext(), date: date, gzipMinimumBytes: 64)
        #expect(String(decoding: plain.head, as: UTF8.self).contains("\r\nContent-Length: \(whole.count)\r\n"))
        #expect(plain.bodyParts.buffers == parts, "sent as they are")
        let gzip = HTTPResponseEncoder.encode(response, context: ResponseContext(acceptsGzip: true), date: date,
                                              gzipMinimumBytes: 64)
        #expect(gzip.bodyParts.isEmpty && gzip.bodySuffix.isEmpty)
        #expect(try #require(Gzip.decompress(gzip.body)) == whole)
        var chunked = response
        chunked.chunked = true
        let framed = HTTPResponseEncoder.encode(chunked, context: ResponseContext(), date: date, gzipMinimumBytes: nil)
        #expect(framed.bodyParts.isEmpty)
        #expect(framed.body == HTTPResponseEncoder.chunkedFraming(whole, []))
        let head = HTTPResponseEncoder.encode(response, context: ResponseContext(isHead: true), date: date, gzipMinimumBytes: nil)
        #expect(head.body.isEmpty && head.bodyParts.isEmpty && head.bodySuffix.isEmpty)
    }

    /// Serves `respond` and asks it for `/a` then `/b` on one kept-alive connection, checking
    /// each body against `expected(path)`.
    func roundTrips(_ respond: @escaping @Sendable (WPHTTPRequest) -> WPHTTPResponse,
                    expected: @escaping (String) -> [UInt8]) async throws {
        try await withTestServer(HandlerFunction { respond($0) }) { port in
            let client = try await TestHTTPClient.connect(port: port)
            defer { client.close() }
            for path in ["/a", "/b"] {
                try await client.send(get(path))
                let response = try await client.readResponse()
                #expect(response.status == 200)
                #expect(response.body.count == expected(path).count)
                #expect(response.body == expected(path), "body of \(path)")
            }
        }
    }

    /// Thousands of parts of a few kilobytes each (a merged exposition's shape), over a socket:
    /// partial writes end anywhere, in a part or between two.
    @Test func manyBodyPartsArriveIntactOverASocket() async throws {
        // Sizes from 0 to 4,000 bytes, scattered (a multiplicative hash of the index).
        let parts: [[UInt8]] = (0..<3_000).map { index in
            (0..<(index &* 2_654_435_761 % 4_001)).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ index) }
        }
        let bodyParts = HTTPBodyParts(parts)
        try await roundTrips({ _ in
            WPHTTPResponse(status: 200, headers: ["Content-Type": "application/octet-stream"], body: Array("start".utf8),
                         bodyParts: bodyParts, bodySuffix: Array("end".utf8))
        }, expected: { _ in Array("start".utf8) + parts.flatMap { $0 } + Array("end".utf8) })
    }

    @Test func largeSharedBodyAndSuffixArriveIntactOverASocket() async throws {
        // Several megabytes: the kernel accepts them in many partial writes that cross from
        // the head into the body and from the body into the suffix.
        var shared = [UInt8](repeating: 0, count: 3 << 20)
        for index in shared.indices { shared[index] = UInt8(truncatingIfNeeded: index &* 31) }
        let snapshot = shared
        try await roundTrips({ request in
            WPHTTPResponse(status: 200, headers: ["Content-Type": "application/octet-stream"], body: snapshot,
                         bodySuffix: Array("suffix for \(request.path)".utf8))
        }, expected: { path in snapshot + Array("suffix for \(path)".utf8) })
    }
}
