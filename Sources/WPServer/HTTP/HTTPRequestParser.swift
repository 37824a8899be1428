/// An incremental HTTP/1.x request parser: a pure function over the buffered bytes.
///
/// Feed it the unconsumed bytes of a connection each time more arrive; it answers
/// ``HTTPParseResult/needMore(awaitingContinue:)``, a complete request with the number of bytes
/// it used, or a rejection with the status to send. It never guesses: bare LF line endings,
/// obs-fold, NUL and other control bytes, conflicting `Content-Length`, and `Content-Length`
/// together with `Transfer-Encoding` are all rejected (RFC 9112 §2.2, §5.2, §6.1, §6.3).
/// After a `.request`, call ``reset()`` before parsing the next one.
///
/// Work is linear in the bytes received: the head is scanned once, a chunked body is decoded
/// as it arrives by a ``ChunkedDecoder`` that keeps its place, and a fixed-length body is
/// copied once when complete. Body limits count bytes on the wire. A request whose route
/// takes no body (``acceptsBody``) is refused with `413` as soon as its head shows one.
struct HTTPRequestParser: Sendable {
    let limits: HTTPParserLimits
    /// Whether the request with this head may carry a body; `nil` accepts every body.
    var acceptsBody: (@Sendable (WPHTTPRequest) -> Bool)?
    /// The head once it is complete, while the body is still arriving.
    private var head: RequestHead?
    private var chunked: ChunkedDecoder?
    /// Head and chunked-body bytes examined by earlier requests and the current head.
    private var examinedBefore = 0
    /// Bytes examined so far, over every request of the connection: the work done, for tests
    /// that check it stays linear.
    var examined: Int { examinedBefore + (chunked?.examined ?? 0) }
    /// Scan state for the end of the head, so slow senders do not cause rescans.
    private var scanned = 0
    private var lineStart = 0
    private var headStart = 0

    init(limits: HTTPParserLimits, acceptsBody: (@Sendable (WPHTTPRequest) -> Bool)? = nil) {
        self.limits = limits
        self.acceptsBody = acceptsBody
    }

    /// Whether the head of the current request is complete (its body is still arriving).
    var hasHead: Bool { head != nil }

    /// How the body of the current request is framed, once its head is complete.
    var bodyFraming: BodyFraming? { head?.framing }

    /// Forgets the previous request; the next call starts at a new request.
    mutating func reset() {
        head = nil
        if let chunked { examinedBefore += chunked.examined }
        chunked = nil
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
                case .success(let parsed):
                    if parsed.framing != .none, let acceptsBody, !acceptsBody(parsed.request) {
                        return .failure(HTTPParseError(status: 413, reason: "\(parsed.request.method) \(parsed.request.path.prefix(64)) takes no request body"))
                    }
                    head = parsed
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
            // Taken out while it runs, so its body buffer is uniquely referenced and grows in place.
            var decoder = chunked ?? ChunkedDecoder(start: head.headEnd, limits: limits)
            chunked = nil
            let step = decoder.advance(bytes)
            chunked = decoder
            switch step {
            case .needMore:
                return .needMore(awaitingContinue: head.expectContinue && bytes.count == head.headEnd)
            case .failure(let error):
                return .failure(error)
            case .done(let end):
                var request = head.request
                request.body = decoder.body
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
            examinedBefore += 1
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
