import WPCompression

/// What the encoder needs to know about the request a response answers.
struct ResponseContext: Sendable, Equatable {
    var isHead: Bool
    var keepAlive: Bool
    var version: WPHTTPVersion
    var acceptsGzip: Bool

    init(isHead: Bool = false, keepAlive: Bool = true, version: WPHTTPVersion = .http11, acceptsGzip: Bool = false) {
        self.isHead = isHead
        self.keepAlive = keepAlive
        self.version = version
        self.acceptsGzip = acceptsGzip
    }

    init(request: WPHTTPRequest, keepAlive: Bool) {
        self.init(isHead: request.method == "HEAD", keepAlive: keepAlive, version: request.version,
                  acceptsGzip: request.acceptsGzip)
    }
}

/// A response as bytes: the status line and header section, then the body in pieces (`body`,
/// each of `bodyParts`, `bodySuffix`; all empty for `HEAD`). The pieces are the handler's
/// buffers, never copies.
struct EncodedResponse: Sendable, Equatable {
    var head: [UInt8]
    var body: [UInt8]
    var bodyParts: HTTPBodyParts = []
    var bodySuffix: [UInt8] = []
    var status: Int
    /// Bytes in all pieces.
    var bodyCount: Int { body.count + bodyParts.byteCount + bodySuffix.count }
    var count: Int { head.count + bodyCount }

    /// The most buffers one write is given (a `sendmsg` gathers them all).
    static let maxBuffersPerWrite = 1024
    /// Once the buffers gathered for one write hold this many bytes, no more are added: the
    /// kernel takes at most a socket buffer's worth per call, and pieces offered but not taken
    /// are gathered again by the next write.
    static let gatherBytesPerWrite = 4 << 20

    init(head: [UInt8], body: [UInt8], bodyParts: HTTPBodyParts = [], bodySuffix: [UInt8] = [], status: Int) {
        self.head = head
        self.body = body
        self.bodyParts = bodyParts
        self.bodySuffix = bodySuffix
        self.status = status
    }

    /// A position in the pieces: head (0), body (1), the body parts, the suffix (last).
    struct Cursor: Equatable {
        var piece = 0
        var offset = 0
    }

    private var pieceCount: Int { bodyParts.count + 3 }

    private func pieceLength(_ index: Int) -> Int {
        switch index {
        case 0: head.count
        case 1: body.count
        case pieceCount - 1: bodySuffix.count
        default: bodyParts.piece(index - 2).count
        }
    }

    /// Moves `cursor` forward by `count` bytes, past every piece it finishes.
    func advance(_ cursor: inout Cursor, by count: Int) {
        var remaining = count
        while cursor.piece < pieceCount {
            let left = pieceLength(cursor.piece) - cursor.offset
            if remaining < left {
                cursor.offset += remaining
                return
            }
            remaining -= left
            cursor = Cursor(piece: cursor.piece + 1, offset: 0)
        }
    }

    /// Calls `write` with the unwritten bytes from `cursor` on: the rest of the piece it points
    /// into, then the following non-empty pieces, at most `limit` (and ``maxBuffersPerWrite``)
    /// buffers and no more once they hold ``gatherBytesPerWrite`` bytes (the first is always whole).
    func withUnwritten<R>(from cursor: Cursor, limit: Int = maxBuffersPerWrite,
                          _ write: (UnsafeBufferPointer<UnsafeRawBufferPointer>) -> R) -> R {
        let limit = max(1, min(limit, Self.maxBuffersPerWrite))
        return head.withUnsafeBytes { head in
            body.withUnsafeBytes { body in
                bodySuffix.withUnsafeBytes { suffix in
                    var buffers: [UnsafeRawBufferPointer] = []
                    buffers.reserveCapacity(min(limit, pieceCount - cursor.piece))
                    var gathered = 0
                    var index = cursor.piece
                    var skip = cursor.offset
                    while index < pieceCount, buffers.count < limit, gathered < Self.gatherBytesPerWrite {
                        let piece = index == 0 ? head : index == 1 ? body
                            : index == pieceCount - 1 ? suffix : bodyParts.piece(index - 2)
                        if piece.count > skip {
                            buffers.append(UnsafeRawBufferPointer(rebasing: piece[skip...]))
                            gathered += piece.count - skip
                        }
                        skip = 0
                        index += 1
                    }
                    return buffers.withUnsafeBufferPointer(write)
                }
            }
        }
    }

    /// The same from a byte offset.
    func withUnwritten<R>(from offset: Int, _ write: (UnsafeBufferPointer<UnsafeRawBufferPointer>) -> R) -> R {
        var cursor = Cursor()
        advance(&cursor, by: offset)
        return withUnwritten(from: cursor, write)
    }
}

/// Serialises ``WPHTTPResponse`` values: a pure function of the response, the request context
/// and the date string.
///
/// Framing is always the server's: handler-set `Content-Length`/`Transfer-Encoding` are
/// replaced (a handler's `Connection: close` is honoured), fields with CR, LF or NUL are dropped (no response splitting), `Date` and
/// `Content-Type` are added when missing. A body is gzip-compressed when the client accepts
/// it, the handler did not set `Content-Encoding`, the type is textual, the body is at least
/// `gzipMinimumBytes` long and compression actually makes it smaller. Every error response
/// (status 400 and above) carries `X-Content-Type-Options: nosniff` unless the handler set it.
enum HTTPResponseEncoder {
    /// Whether ``encode(_:context:date:gzipMinimumBytes:)`` would try to gzip the body (the
    /// expensive part of encoding): a body that may be sent, is compressible, long enough, not
    /// already encoded, for a client that accepts gzip.
    static func compresses(_ response: WPHTTPResponse, context: ResponseContext, gzipMinimumBytes: Int?) -> Bool {
        context.acceptsGzip && allowsBody(response.status)
            && isGzipCandidate(response.headers, bodyCount: response.bodyCount, gzipMinimumBytes: gzipMinimumBytes)
    }

    /// Whether a response with this status carries a body.
    static func allowsBody(_ status: Int) -> Bool {
        !(100..<200).contains(status) && status != 204 && status != 304
    }

    /// Whether a body with these headers is worth gzipping: compressible, long enough, not
    /// already encoded.
    static func isGzipCandidate(_ headers: WPHTTPHeaders, bodyCount: Int, gzipMinimumBytes: Int?) -> Bool {
        guard let minimum = gzipMinimumBytes, !headers.contains("Content-Encoding"),
              isCompressible(headers["Content-Type"]) else { return false }
        return bodyCount >= minimum
    }

    /// What ``encode(_:context:date:gzipMinimumBytes:)`` sends before framing, shared with
    /// adapters that frame responses themselves (``WPHTTPResponse/prepared(acceptsGzip:gzipMinimumBytes:)``).
    struct Prepared {
        var headers: WPHTTPHeaders
        var body: [UInt8]
        var parts: HTTPBodyParts
        var suffix: [UInt8]
        /// The handler asked to close the connection after this response.
        var closes: Bool
    }

    static func prepare(_ response: WPHTTPResponse, acceptsGzip: Bool, gzipMinimumBytes: Int?) -> Prepared {
        var body = response.body
        var parts = response.bodyParts
        var suffix = response.bodySuffix
        var closes = false
        if let connection = response.headers["Connection"], HTTPRequestParser.commaList(connection)
            .contains(where: { $0.lowercased() == "close" }) {
            closes = true
        }
        var headers = WPHTTPHeaders()
        for field in response.headers where isValidField(field.name, field.value) {
            if field.name.caseInsensitiveEquals("Content-Length") || field.name.caseInsensitiveEquals("Transfer-Encoding")
                || field.name.caseInsensitiveEquals("Connection") {
                continue
            }
            headers.add(name: field.name, value: field.value)
        }
        let bodyAllowed = allowsBody(response.status)
        if !bodyAllowed {
            body = []
            parts = []
            suffix = []
        }
        let bodyCount = response.bodyCount
        if bodyAllowed, bodyCount > 0, !headers.contains("Content-Type") {
            headers.add(name: "Content-Type", value: "application/octet-stream")
        }
        // Error bodies often quote the request (a bad parameter, an unknown target): a browser
        // must not guess another type than the one sent.
        if response.status >= 400, !headers.contains("X-Content-Type-Options") {
            headers.add(name: "X-Content-Type-Options", value: "nosniff")
        }
        if bodyAllowed, isGzipCandidate(headers, bodyCount: bodyCount, gzipMinimumBytes: gzipMinimumBytes) {
            varyOnAcceptEncoding(&headers)
            // Joined only when compressing: a plain response sends its pieces as they are.
            if acceptsGzip {
                let whole = response.wholeBody
                if let compressed = Gzip.compress(whole), compressed.count < whole.count {
                    body = compressed
                    parts = []
                    suffix = []
                    headers.add(name: "Content-Encoding", value: "gzip")
                }
            }
        }
        return Prepared(headers: headers, body: body, parts: parts, suffix: suffix, closes: closes)
    }

    static func encode(_ response: WPHTTPResponse, context: ResponseContext, date: String,
                       gzipMinimumBytes: Int?) -> EncodedResponse {
        let prepared = prepare(response, acceptsGzip: context.acceptsGzip, gzipMinimumBytes: gzipMinimumBytes)
        var (headers, body, parts, suffix) = (prepared.headers, prepared.body, prepared.parts, prepared.suffix)
        var context = context
        if prepared.closes { context.keepAlive = false }
        let bodyAllowed = allowsBody(response.status)
        var head: [UInt8] = []
        head.reserveCapacity(160 + headers.count * 32)
        head.append(contentsOf: "HTTP/1.1 \(response.status) \(reasonPhrase(response.status))\r\n".utf8)
        if !headers.contains("Date") { appendField(&head, "Date", date) }
        for field in headers { appendField(&head, field.name, field.value) }
        let chunked = response.chunked && bodyAllowed && context.version != .http10
        if chunked {
            appendField(&head, "Transfer-Encoding", "chunked")
            if !context.isHead {
                parts.append(to: &body)
                body = chunkedFraming(body, suffix)
                parts = []
                suffix = []
            }
        } else if response.status >= 200, response.status != 204, response.status != 304 {
            appendField(&head, "Content-Length", String(body.count + parts.byteCount + suffix.count))
        }
        if !context.keepAlive {
            appendField(&head, "Connection", "close")
        } else if context.version == .http10 {
            appendField(&head, "Connection", "keep-alive")
        }
        head.append(contentsOf: [13, 10])
        return EncodedResponse(head: head, body: context.isHead ? [] : body, bodyParts: context.isHead ? [] : parts,
                               bodySuffix: context.isHead ? [] : suffix, status: response.status)
    }

    /// `body` then `suffix` as chunks of at most ``WPHTTPResponse/chunkSize`` bytes, ended by the
    /// last (empty) chunk and no trailers.
    static func chunkedFraming(_ body: [UInt8], _ suffix: [UInt8]) -> [UInt8] {
        let whole = suffix.isEmpty ? body : body + suffix
        var framed: [UInt8] = []
        framed.reserveCapacity(whole.count + (whole.count / WPHTTPResponse.chunkSize + 2) * 12)
        var start = 0
        while start < whole.count {
            let end = min(start + WPHTTPResponse.chunkSize, whole.count)
            framed.append(contentsOf: String(end - start, radix: 16).utf8)
            framed.append(contentsOf: [13, 10])
            framed.append(contentsOf: whole[start..<end])
            framed.append(contentsOf: [13, 10])
            start = end
        }
        framed.append(contentsOf: Array("0\r\n\r\n".utf8))
        return framed
    }

    /// Adds `Accept-Encoding` to the response's `Vary` unless a `Vary` field already names it
    /// (or is `*`): a handler that sets `Vary: Accept, Accept-Encoding` keeps one field.
    static func varyOnAcceptEncoding(_ headers: inout WPHTTPHeaders) {
        let present = headers.values(for: "Vary")
        let names = present.flatMap { $0.split(separator: ",") }.map { $0.filter { $0 != " " && $0 != "\t" }.lowercased() }
        if names.contains("accept-encoding") || names.contains("*") { return }
        if present.isEmpty {
            headers.add(name: "Vary", value: "Accept-Encoding")
        } else {
            headers.set(name: "Vary", value: (present + ["Accept-Encoding"]).joined(separator: ", "))
        }
    }

    static func isCompressible(_ contentType: String?) -> Bool {
        guard let contentType else { return false }
        let type = Array(contentType.utf8.map { $0 >= 0x41 && $0 <= 0x5A ? $0 | 0x20 : $0 })
        func has(_ needle: StaticString, prefixOnly: Bool) -> Bool {
            let needle = UnsafeBufferPointer(start: needle.utf8Start, count: needle.utf8CodeUnitCount)
            guard type.count >= needle.count else { return false }
            let last = prefixOnly ? 0 : type.count - needle.count
            return (0...last).contains { start in needle.indices.allSatisfy { type[start + $0] == needle[$0] } }
        }
        return has("text/", prefixOnly: true) || has("application/json", prefixOnly: true) || has("+json", prefixOnly: false)
            || has("application/xml", prefixOnly: true) || has("+xml", prefixOnly: false)
            || has("javascript", prefixOnly: false) || has("application/openmetrics-text", prefixOnly: true)
    }

    private static func isValidField(_ name: String, _ value: String) -> Bool {
        !name.isEmpty && name.utf8.allSatisfy(HTTPRequestParser.isTokenByte)
            && !value.utf8.contains { $0 == 13 || $0 == 10 || $0 == 0 }
    }

    private static func appendField(_ bytes: inout [UInt8], _ name: String, _ value: String) {
        bytes.append(contentsOf: name.utf8)
        bytes.append(contentsOf: [58, 32])
        bytes.append(contentsOf: value.utf8)
        bytes.append(contentsOf: [13, 10])
    }

    static func reasonPhrase(_ status: Int) -> String {
        switch status {
        case 100: "Continue"
        case 200: "OK"
        case 201: "Created"
        case 202: "Accepted"
        case 204: "No Content"
        case 301: "Moved Permanently"
        case 302: "Found"
        case 304: "Not Modified"
        case 400: "Bad Request"
        case 401: "Unauthorized"
        case 403: "Forbidden"
        case 404: "Not Found"
        case 405: "Method Not Allowed"
        case 408: "Request Timeout"
        case 413: "Content Too Large"
        case 417: "Expectation Failed"
        case 429: "Too Many Requests"
        case 431: "Request Header Fields Too Large"
        case 500: "Internal Server Error"
        case 501: "Not Implemented"
        case 502: "Bad Gateway"
        case 503: "Service Unavailable"
        case 504: "Gateway Timeout"
        case 505: "HTTP Version Not Supported"
        default: "Status \(status)"
        }
    }
}
