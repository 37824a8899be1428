/// An incremental HTTP/1.x request parser: a pure function over the buffered bytes.
///
/// Feed it the unconsumed bytes of a connection each time more arrive; it answers
/// ``HTTPParseResult/needMore(awaitingContinue:)``, a complete request with the number of bytes
/// it used, or a rejection with the status to send. It never guesses: bare LF line endings,
/// obs-fold, NUL and other control bytes, conflicting `Content-Length`, and `Content-Length`
/// together with `Transfer-Encoding` are all rejected (RFC 9112 §2.2, §5.2, §6.1, §6.3).
/// After a `.request`, call ``reset()`` before parsing the next one.
struct HTTPRequestParser: Sendable {
    let limits: HTTPParserLimits
    /// The head once it is complete, while the body is still arriving.
    private var head: RequestHead?
    /// Scan state for the end of the head, so slow senders do not cause rescans.
    private var scanned = 0
    private var lineStart = 0
    private var headStart = 0

    init(limits: HTTPParserLimits) {
        self.limits = limits
    }

    /// Whether the head of the current request is complete (its body is still arriving).
    var hasHead: Bool { head != nil }

    /// Forgets the previous request; the next call starts at a new request.
    mutating func reset() {
        head = nil
        scanned = 0
        lineStart = 0
        headStart = 0
    }

    /// Parses the buffered, not yet consumed bytes of a connection.
    ///
    /// The buffer must start where the previous request ended and only grow between calls.
    mutating func parse(_ bytes: UnsafeRawBufferPointer) -> HTTPParseResult {
        if head == nil {
            switch scanHead(bytes) {
            case .needMore: return .needMore(awaitingContinue: false)
            case .failure(let error): return .failure(error)
            case .found(let end):
                switch Self.parseHead(bytes, start: headStart, end: end, limits: limits) {
                case .failure(let error): return .failure(error)
                case .success(let parsed): head = parsed
                }
            }
        }
        guard let head else { return .needMore(awaitingContinue: false) }
        switch head.framing {
        case .none:
            return .request(ParsedRequest(request: head.request, keepAlive: head.keepAlive, consumed: head.headEnd))
        case .length(let length):
            guard bytes.count - head.headEnd >= length else {
                return .needMore(awaitingContinue: head.expectContinue && bytes.count == head.headEnd)
            }
            var request = head.request
            request.body = Array(bytes[head.headEnd..<head.headEnd + length])
            return .request(ParsedRequest(request: request, keepAlive: head.keepAlive,
                                          consumed: head.headEnd + length))
        case .chunked:
            switch ChunkedDecoder.decode(bytes, from: head.headEnd, limits: limits) {
            case .needMore:
                return .needMore(awaitingContinue: head.expectContinue && bytes.count == head.headEnd)
            case .failure(let error):
                return .failure(error)
            case .done(let body, let end):
                var request = head.request
                request.body = body
                return .request(ParsedRequest(request: request, keepAlive: head.keepAlive, consumed: end))
            }
        }
    }

    private enum Scan { case needMore, found(Int), failure(HTTPParseError) }

    /// Looks for the empty line ending the head, rejecting bare LF and NUL on the way.
    private mutating func scanHead(_ bytes: UnsafeRawBufferPointer) -> Scan {
        var index = scanned
        // Only the first maxHeaderBytes of the head are examined, so the answer never depends
        // on how much more has arrived.
        while index < bytes.count, index < headStart + limits.maxHeaderBytes {
            let byte = bytes[index]
            if byte == 0 { return .failure(.bad("NUL byte in request head at offset \(index)")) }
            if byte == UInt8(ascii: "\n") {
                guard index > 0, bytes[index - 1] == UInt8(ascii: "\r") else {
                    return .failure(.bad("bare LF line ending in request head at offset \(index)"))
                }
                if index - 1 == lineStart {
                    if lineStart == headStart {
                        // Empty lines before the request line are ignored (RFC 9112 §2.2).
                        headStart = index + 1
                        lineStart = index + 1
                        guard headStart <= 16 else { return .failure(.bad("too many empty lines before request line")) }
                        index += 1
                        continue
                    }
                    scanned = index + 1
                    return .found(index + 1)
                }
                lineStart = index + 1
            }
            index += 1
        }
        scanned = index
        if index >= headStart + limits.maxHeaderBytes { return .failure(Self.headTooLarge(limits)) }
        return .needMore
    }

    private static func headTooLarge(_ limits: HTTPParserLimits) -> HTTPParseError {
        HTTPParseError(status: 431, reason: "request header section exceeds \(limits.maxHeaderBytes) bytes")
    }
}
