import FoundationEssentials

/// One HTTP request for ``HTTPClient``.
///
/// The client adds the framing headers itself: `Host`, `Content-Length` and, when configured
/// and absent here, `User-Agent`. Caller headers named `Host`, `Content-Length`,
/// `Transfer-Encoding` or `Connection` are not sent.
public struct HTTPClientRequest: Sendable {
    /// The method, e.g. `GET`, `POST`, `PUT`, `DELETE`.
    public var method: String
    /// An `http://` or `https://` URL; user info in it is never sent.
    public var url: URL
    /// Header fields in order.
    public var headers: [(name: String, value: String)]
    /// The body; sent with `Content-Length`.
    public var body: [UInt8]
    /// Time allowed for the whole exchange: resolving, connecting, writing and reading.
    public var timeout: Duration

    /// Creates a request.
    ///
    /// - Parameters:
    ///   - method: the HTTP method.
    ///   - url: where to send it.
    ///   - headers: header fields, in order.
    ///   - body: the body, empty by default.
    ///   - timeout: the deadline of the whole exchange, 10 s by default.
    public init(method: String = "GET", url: URL, headers: [(name: String, value: String)] = [],
                body: [UInt8] = [], timeout: Duration = .seconds(10)) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
        self.timeout = timeout
    }

    /// The first value of header `name` (case-insensitive).
    public func header(_ name: String) -> String? {
        headers.first { $0.name.lowercased() == name.lowercased() }?.value
    }
}
