import Testing
import WPTestThreads
@testable import WPHTTPClient

/// A byte array read in slices of `step` bytes, as a socket might deliver it.
struct BytesSource: ByteSource {
    var bytes: [UInt8]
    var step: Int
    var offset = 0

    mutating func read(into buffer: UnsafeMutableRawBufferPointer) throws(HTTPClientError) -> Int {
        let count = min(step, buffer.count, bytes.count - offset)
        guard count > 0 else { return 0 }
        buffer.copyMemory(from: UnsafeRawBufferPointer(rebasing: bytes.withUnsafeBytes { $0 }[offset..<(offset + count)]))
        offset += count
        return count
    }
}

/// Reads one response from `text`, delivered 1 byte at a time and all at once; both must agree.
func parse(_ text: String, method: String = "GET", maxBody: Int = 1 << 20,
           maxHead: Int = 64 << 10) throws(HTTPClientError) -> ParsedResponse {
    var results: [ParsedResponse] = []
    for step in [1, 7, 1 << 20] {
        var reader = ResponseReader(source: BytesSource(bytes: Array(text.utf8), step: step),
                                    maxHeadBytes: maxHead, maxBodyBytes: maxBody)
        results.append(try reader.read(method: method))
    }
    return results[0]
}

func parseError(_ text: String, method: String = "GET", maxBody: Int = 1 << 20,
                sourceLocation: SourceLocation = #_sourceLocation) -> HTTPClientError? {
    do {
        _ = try parse(text, method: method, maxBody: maxBody)
        Issue.record("expected an error", sourceLocation: sourceLocation)
        return nil
    } catch {
        return error
    }
}

/// The response codec on literal bytes: framing, reuse, and every malformed case.
@Suite(.ownThreads, .timeLimit(.minutes(3))) struct ResponseReaderTests {
    @Test func contentLengthBody() throws {
        let parsed = try parse("HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 5\r\n\r\nhello")
        #expect(parsed.response.status == 200)
        #expect(parsed.response.body == Array("hello".utf8))
        #expect(parsed.response.header("content-type") == "text/plain")
        #expect(parsed.reusable)
    }

    @Test func chunkedBodyWithExtensionsAndTrailers() throws {
        let parsed = try parse("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
                               + "5;name=value\r\nhello\r\n1A\r\nabcdefghijklmnopqrstuvwxyz\r\n0\r\nX-Trailer: t\r\n\r\n")
        #expect(String(decoding: parsed.response.body, as: UTF8.self) == "helloabcdefghijklmnopqrstuvwxyz")
        #expect(parsed.reusable)
    }

    /// Chunk-size lines do not count against the head limit: many small chunks are fine.
    @Test func manySmallChunksStayWithinTheHeadLimit() throws {
        let chunks = String(repeating: "a\r\n0123456789\r\n", count: 2000)
        var reader = ResponseReader(source: BytesSource(bytes: Array(("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
                                                                      + chunks + "0\r\n\r\n").utf8), step: 1 << 20),
                                    maxHeadBytes: 1000, maxBodyBytes: 1 << 20)
        #expect(try reader.read(method: "GET").response.body.count == 20_000)
    }

    @Test func closeDelimitedBodyIsReadToTheEndAndNotReused() throws {
        let parsed = try parse("HTTP/1.1 200 OK\r\nConnection: close\r\n\r\nall of it")
        #expect(parsed.response.body == Array("all of it".utf8))
        #expect(!parsed.reusable)
        #expect(try !parse("HTTP/1.0 200 OK\r\nContent-Length: 0\r\n\r\n").reusable)
        #expect(try parse("HTTP/1.0 200 OK\r\nConnection: keep-alive\r\nContent-Length: 0\r\n\r\n").reusable)
    }

    @Test func bareLineFeedsInterimResponsesAndBodilessStatuses() throws {
        #expect(try parse("HTTP/1.1 200 OK\nContent-Length: 2\n\nok").response.body == Array("ok".utf8))
        let interim = try parse("HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 201 Created\r\nContent-Length: 0\r\n\r\n")
        #expect(interim.response.status == 201)
        #expect(try parse("HTTP/1.1 204 No Content\r\n\r\n").response.body.isEmpty)
        #expect(try parse("HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\n", method: "HEAD").response.body.isEmpty)
        #expect(try parse("HTTP/1.1 301 Moved\r\nLocation: /x/\r\nContent-Length: 0\r\n\r\n")
            .response.header("Location") == "/x/")
    }

    @Test(arguments: ["HTTP/2 200 OK", "HTTP/1.1 20 OK", "HTTP/1.1 2000 OK", "HTTP/1.1 OK", "ICY 200 OK",
                      "HTTP/1.1 099 Low", "HTTP/1.1 200\u{1}OK", "<html>"])
    func malformedStatusLines(_ line: String) {
        #expect(parseError(line + "\r\nContent-Length: 0\r\n\r\n")?.kind == .malformedResponse)
    }

    @Test(arguments: ["NoColon", " folded: yes", "Bad Name: x", ": empty name", "X: a\u{7}b"])
    func malformedHeaders(_ line: String) {
        #expect(parseError("HTTP/1.1 200 OK\r\n" + line + "\r\nContent-Length: 0\r\n\r\n")?.kind == .malformedResponse)
    }

    @Test(arguments: ["zz", "", "-1", "ffffffffffffffffff", "5 x"])
    func malformedChunkSizes(_ size: String) {
        let error = parseError("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n\(size)\r\nhello\r\n0\r\n\r\n")
        #expect(error?.kind == .malformedResponse)
    }

    @Test func chunkLongerThanItsSizeAndBadLengthsAreMalformed() throws {
        #expect(parseError("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nhello\r\n0\r\n\r\n")?.kind
                == .malformedResponse)
        #expect(parseError("HTTP/1.1 200 OK\r\nContent-Length: 5x\r\n\r\nhello")?.kind == .malformedResponse)
        #expect(parseError("HTTP/1.1 200 OK\r\nContent-Length: 5\r\nContent-Length: 6\r\n\r\nhello!")?.kind
                == .malformedResponse)
        #expect(try parse("HTTP/1.1 200 OK\r\nContent-Length: 5, 5\r\n\r\nhello").response.body.count == 5)
        let longExtension = "5;" + String(repeating: "e", count: 5000)
        #expect(parseError("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n\(longExtension)\r\nhello\r\n0\r\n\r\n")
                == ResponseReader<BytesSource>.chunkLineTooLong)
    }

    @Test func bodiesOverTheLimitFailWhateverTheirFraming() {
        #expect(parseError("HTTP/1.1 200 OK\r\nContent-Length: 11\r\n\r\nhello world", maxBody: 10)?.kind == .tooLarge)
        #expect(parseError("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n6\r\nhello \r\n5\r\nworld\r\n0\r\n\r\n",
                           maxBody: 10)?.kind == .tooLarge)
        #expect(parseError("HTTP/1.1 200 OK\r\n\r\nhello world", maxBody: 10)?.kind == .tooLarge)
        #expect(throws: HTTPClientError(.tooLarge, "the response head is larger than 100 bytes")) {
            try parse("HTTP/1.1 200 OK\r\nX: " + String(repeating: "a", count: 200) + "\r\n\r\n", maxHead: 100)
        }
    }

    @Test func endOfStreamBeforeAnyByteIsANetworkErrorAndMidHeadIsMalformed() throws {
        var empty = ResponseReader(source: BytesSource(bytes: [], step: 1), maxHeadBytes: 100, maxBodyBytes: 100)
        #expect(throws: HTTPClientError.self) { try empty.read(method: "GET") }
        #expect(!empty.receivedAny)
        #expect(parseError("")?.kind == .network)
        #expect(parseError("HTTP/1.1 200 OK\r\nContent-")?.kind == .malformedResponse)
        #expect(parseError("HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nshort")?.kind == .network)
    }

    @Test func errorsNeverQuoteTheResponse() {
        let secret = "s3cr3t-echo"
        for text in ["HTTP/1.1 2x0 \(secret)\r\n\r\n", "HTTP/1.1 200 OK\r\n\(secret)\r\n\r\n",
                     "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n\(secret)\r\n"] {
            let error = parseError(text)
            #expect(error != nil)
            #expect(error.map { !"\($0)".contains(secret) } == true)
        }
    }
}
