/// Where a ``ResponseReader`` gets bytes: a socket in use, a byte array in tests.
protocol ByteSource {
    /// Reads up to `buffer.count` bytes; returns 0 at end of stream.
    mutating func read(into buffer: UnsafeMutableRawBufferPointer) throws(HTTPClientError) -> Int
}

/// A whole response read from a ``ByteSource``: head, interim 1xx responses skipped, body by
/// its framing, within the head and body limits.
struct ParsedResponse {
    var response: HTTPClientResponse
    /// Whether the connection may carry another request (persistent, fully consumed).
    var reusable: Bool
}

/// Reads HTTP/1.x responses from a byte stream.
struct ResponseReader<Source: ByteSource> {
    var source: Source
    let maxHeadBytes: Int
    let maxBodyBytes: Int
    /// Whether any byte arrived: a reused connection that fails before is safe to retry.
    private(set) var receivedAny = false
    private var buffer: [UInt8] = []
    /// Where the source reads into, allocated on the first read.
    private var scratch: [UInt8] = []
    private var start = 0
    private var headBytes = 0

    init(source: Source, maxHeadBytes: Int, maxBodyBytes: Int) {
        self.source = source
        self.maxHeadBytes = maxHeadBytes
        self.maxBodyBytes = maxBodyBytes
    }

    /// Reads one response to a request with `method`.
    mutating func read(method: String) throws(HTTPClientError) -> ParsedResponse {
        headBytes = 0
        while true {
            let statusLine = try line(missing: "before a status line")
            let (minorVersion, status) = try ResponseSyntax.statusLine(statusLine)
            var headers: [(name: String, value: String)] = []
            while true {
                let field = try line(missing: "in the middle of the response head")
                if field.isEmpty { break }
                headers.append(try ResponseSyntax.headerField(field, index: headers.count + 1))
            }
            if (100..<200).contains(status) && status != 101 { continue } // interim response
            let framing = try ResponseSyntax.framing(method: method, status: status, headers: headers)
            let body = try self.body(framing)
            let persistent = ResponseSyntax.allowsReuse(minorVersion: minorVersion, headers: headers)
            let reusable = persistent && framing != .untilClose && status != 101 && start == buffer.count
                && !(framing == .chunked && headers.contains { $0.name.lowercased() == "content-length" })
            return ParsedResponse(response: HTTPClientResponse(status: status, headers: headers, body: body),
                                  reusable: reusable)
        }
    }

    private mutating func body(_ framing: ResponseSyntax.Framing) throws(HTTPClientError) -> [UInt8] {
        switch framing {
        case .none:
            return []
        case .length(let length):
            guard length <= maxBodyBytes else { throw tooLarge() }
            return try bytes(length)
        case .untilClose:
            var body: [UInt8] = []
            while true {
                if start < buffer.count {
                    guard body.count + buffer.count - start <= maxBodyBytes else { throw tooLarge() }
                    body += buffer[start...]
                    start = buffer.count
                }
                guard try fill() else { return body }
            }
        case .chunked:
            var body: [UInt8] = []
            while true {
                let size = try ResponseSyntax.chunkSize(try line(missing: "before a chunk size", limit: Self.maxChunkLine, overflow: Self.chunkLineTooLong).0)
                if size == 0 { break }
                guard size <= maxBodyBytes - body.count else { throw tooLarge() }
                body += try bytes(size)
                guard try line(missing: "after a chunk", limit: Self.maxChunkLine, overflow: Self.chunkLineTooLong).0.isEmpty else {
                    throw HTTPClientError(.malformedResponse, "a chunk is longer than its size line says")
                }
            }
            headBytes = 0
            while try !line(missing: "in the chunk trailers").isEmpty {}
            return body
        }
    }

    /// Chunk-size lines (with extensions) longer than this are rejected.
    static var maxChunkLine: Int { 4096 }

    static var chunkLineTooLong: HTTPClientError {
        HTTPClientError(.malformedResponse, "a chunk size line is longer than \(maxChunkLine) bytes")
    }

    private func tooLarge() -> HTTPClientError {
        HTTPClientError(.tooLarge, "the response body is larger than \(maxBodyBytes) bytes")
    }

    /// The next line of the head or trailers, counted against the head limit.
    private mutating func line(missing place: String) throws(HTTPClientError) -> ArraySlice<UInt8> {
        let (line, length) = try line(missing: place, limit: maxHeadBytes - headBytes)
        headBytes += length
        return line
    }

    /// The next line without its `\n` or `\r\n`, and its length on the wire (at most `limit`;
    /// longer lines throw `overflow`, by default the head-size error).
    private mutating func line(missing place: String, limit: Int,
                               overflow: HTTPClientError? = nil) throws(HTTPClientError) -> (ArraySlice<UInt8>, Int) {
        var searched = start
        while true {
            if let newline = buffer[searched...].firstIndex(of: UInt8(ascii: "\n")) {
                let length = newline + 1 - start
                guard length <= limit else { throw overflow ?? headTooLarge() }
                var end = newline
                if end > start, buffer[end - 1] == UInt8(ascii: "\r") { end -= 1 }
                defer { start = newline + 1 }
                return (buffer[start..<end], length)
            }
            guard buffer.count - start <= limit else { throw overflow ?? headTooLarge() }
            searched = buffer.count
            let before = start
            guard try fill() else {
                throw HTTPClientError(receivedAny ? .malformedResponse : .network,
                                      "the server closed the connection \(receivedAny ? place : "before responding")")
            }
            searched -= before - start // fill() may have compacted the buffer
        }
    }

    private func headTooLarge() -> HTTPClientError {
        HTTPClientError(.tooLarge, "the response head is larger than \(maxHeadBytes) bytes")
    }

    /// Exactly `count` bytes.
    private mutating func bytes(_ count: Int) throws(HTTPClientError) -> [UInt8] {
        var result: [UInt8] = []
        result.reserveCapacity(min(count, 1 << 20))
        while result.count < count {
            if start == buffer.count {
                guard try fill() else {
                    throw HTTPClientError(.network, "the server closed the connection after \(result.count) "
                                          + "of \(count) body bytes")
                }
            }
            let take = min(count - result.count, buffer.count - start)
            result += buffer[start..<(start + take)]
            start += take
        }
        return result
    }

    /// Reads more bytes after the unread ones; false at end of stream.
    private mutating func fill() throws(HTTPClientError) -> Bool {
        if start > 0 {
            buffer.removeFirst(start)
            start = 0
        }
        if scratch.isEmpty { scratch = [UInt8](repeating: 0, count: 16 << 10) }
        let read: Result<Int, HTTPClientError> = scratch.withUnsafeMutableBytes { raw in
            Result { () throws(HTTPClientError) in try source.read(into: raw) }
        }
        let count = try read.get()
        guard count > 0 else { return false }
        receivedAny = true
        buffer += scratch[..<count]
        return true
    }
}
