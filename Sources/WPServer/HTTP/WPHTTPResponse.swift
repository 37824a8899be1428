/// A response produced by an ``HTTPHandler``.
///
/// The server adds `Date`, `Content-Length` (or chunked framing, see ``chunked``) and `Connection`. When the
/// handler has already set `Content-Encoding`, the server sends the body as it is and never
/// compresses it again: a handler can serve a pre-compressed body this way.
///
/// The body is `body`, then each piece of `bodyParts`, then `bodySuffix`. A handler that serves
/// a large shared buffer plus a small per-request part sets `body` and `bodySuffix`; one whose
/// body is assembled from many pieces of shared storage (a merged exposition) lists them in
/// `bodyParts` (``HTTPBodyParts``). The server writes every piece back to back (`sendmsg`
/// gathering up to 1,024 buffers a call) and never copies nor joins them, unless it compresses or
/// chunks the body.
public struct WPHTTPResponse: Sendable, Equatable {
    /// The status code (`200`).
    public var status: Int
    /// The header fields the handler sets; the server adds the framing ones.
    public var headers: WPHTTPHeaders
    /// The first bytes of the body (often all of it).
    public var body: [UInt8]
    /// Pieces sent after `body` and before `bodySuffix`, in order, as part of the same body.
    public var bodyParts: HTTPBodyParts
    /// Bytes sent right after `body` (and `bodyParts`), as part of the same body.
    public var bodySuffix: [UInt8]
    /// Frame the body with `Transfer-Encoding: chunked` (chunks of at most ``chunkSize``
    /// bytes) instead of `Content-Length`, as servers that stream their replies do. Only for
    /// HTTP/1.1 requests: an HTTP/1.0 client gets `Content-Length`. Costs a copy of the body,
    /// so it is meant for imitating such servers, not for large bodies.
    public var chunked: Bool

    /// The largest chunk of a ``chunked`` body (8 KiB, as common servlet containers send).
    public static let chunkSize = 8192

    /// Creates a response; by default without header fields or body, framed by `Content-Length`.
    public init(status: Int, headers: WPHTTPHeaders = WPHTTPHeaders(), body: [UInt8] = [], bodyParts: HTTPBodyParts = [],
                bodySuffix: [UInt8] = [], chunked: Bool = false) {
        self.status = status
        self.headers = headers
        self.body = body
        self.bodyParts = bodyParts
        self.bodySuffix = bodySuffix
        self.chunked = chunked
    }

    /// The length of the whole body: `body`, `bodyParts` and `bodySuffix`.
    public var bodyCount: Int { body.count + bodyParts.byteCount + bodySuffix.count }

    /// The whole body as one array (a copy when there is more than one piece).
    public var wholeBody: [UInt8] {
        guard !bodyParts.isEmpty || !bodySuffix.isEmpty else { return body }
        var whole: [UInt8] = []
        whole.reserveCapacity(bodyCount)
        whole.append(contentsOf: body)
        bodyParts.append(to: &whole)
        whole.append(contentsOf: bodySuffix)
        return whole
    }

    /// A `text/plain; charset=utf-8` response.
    public static func text(_ text: String, status: Int = 200) -> WPHTTPResponse {
        WPHTTPResponse(status: status, headers: ["Content-Type": "text/plain; charset=utf-8"], body: Array(text.utf8))
    }

    /// An `application/json` response from already encoded JSON bytes.
    public static func json(_ body: [UInt8], status: Int = 200) -> WPHTTPResponse {
        WPHTTPResponse(status: status, headers: ["Content-Type": "application/json"], body: body)
    }
}

/// Answers HTTP requests. The one seam between the server and what it serves.
///
/// Contract: `handle` is called concurrently from many connections; implementations must be
/// safe for that. A thrown error becomes a `500` response (logged, never sent to the client),
/// and the server keeps serving. `handle` runs as a task on Swift's global pool, never on the
/// server's event loop, and its response body is compressed there too, so rendering a large
/// registry in `handle` delays only that request. A handler that only hands back bytes
/// already rendered (and compressed) says so with ``servesPreRenderedBody(_:)``: it then runs
/// on the loop thread, saving two thread hops (a body that still needs compressing is
/// compressed off the loop all the same). `handle` must never block a thread for long: do slow
/// work asynchronously.
public protocol HTTPHandler: Sendable {
    /// The answer to `request`; a thrown error is answered `500` and logged.
    func handle(_ request: WPHTTPRequest) async throws -> WPHTTPResponse
    /// Whether `handle` answers `request` with bytes already rendered, doing no rendering,
    /// no compression and no blocking: then it may run on the event loop thread (with
    /// ``WPHTTPServer/Configuration/runsHandlersOnEventLoop``). Asked on the loop with the whole
    /// request: must be quick. The default is `false`.
    func servesPreRenderedBody(_ request: WPHTTPRequest) -> Bool
    /// Whether a request with this head (method, target, headers; no body yet) may carry a
    /// body. Asked on the event loop as soon as the head is complete: must be quick and
    /// must not block. A request with a body that is not accepted is answered `413` at once,
    /// before its body is read. The default accepts every body.
    func acceptsBody(_ head: WPHTTPRequest) -> Bool
}

extension HTTPHandler {
    /// `true`: by default every request may carry a body.
    public func acceptsBody(_ head: WPHTTPRequest) -> Bool { true }
    /// `false`: by default `handle` runs on Swift's pool, never on the event loop.
    public func servesPreRenderedBody(_ request: WPHTTPRequest) -> Bool { false }
}

extension WPHTTPResponse {
    /// The response as ``WPHTTPServer`` sends it, before HTTP/1.1 framing, for an adapter that
    /// serves handlers on another server (Hummingbird): fields unsafe in HTTP dropped, the
    /// framing fields (`Content-Length`, `Transfer-Encoding`, `Connection`) removed,
    /// `Content-Type` defaulted, `X-Content-Type-Options: nosniff` on errors, and the body
    /// gzip-compressed when `acceptsGzip` and it is textual, at least `gzipMinimumBytes` long
    /// and smaller compressed (`Content-Encoding: gzip`, `Vary: Accept-Encoding` once).
    ///
    /// - Returns: the headers and the whole body (empty for a status without one).
    public func prepared(acceptsGzip: Bool, gzipMinimumBytes: Int? = 1024) -> (headers: WPHTTPHeaders, body: [UInt8]) {
        let prepared = HTTPResponseEncoder.prepare(self, acceptsGzip: acceptsGzip, gzipMinimumBytes: gzipMinimumBytes)
        var body = prepared.body
        prepared.parts.append(to: &body)
        body += prepared.suffix
        return (prepared.headers, body)
    }
}
