package import FoundationEssentials

/// One HTTP request for ``HTTPClient``.
///
/// The client adds the framing headers itself: `Host`, `Content-Length` and, when configured
/// and absent here, `User-Agent`. Caller headers named `Host`, `Content-Length`,
/// `Transfer-Encoding` or `Connection` are not sent.
package struct HTTPClientRequest: Sendable, Equatable {
    /// The method, e.g. `GET`, `POST`, `PUT`, `DELETE`.
    package var method: String
    /// An `http://` or `https://` URL; user info in it is never sent.
    package var url: URL
    /// Header fields in order.
    package var headers: [(name: String, value: String)]
    /// The body; sent with `Content-Length`.
    package var body: [UInt8]
    /// Time allowed for the whole exchange: resolving, connecting, writing and reading.
    package var timeout: Duration

    /// Creates a request.
    ///
    /// - Parameters:
    ///   - method: the HTTP method.
    ///   - url: where to send it.
    ///   - headers: header fields, in order.
    ///   - body: the body, empty by default.
    ///   - timeout: the deadline of the whole exchange, 10 s by default.
    package init(method: String = "GET", url: URL, headers: [(name: String, value: String)] = [],
                body: [UInt8] = [], timeout: Duration = .seconds(10)) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
        self.timeout = timeout
    }

    /// The first value of header `name` (case-insensitive).
    package func header(_ name: String) -> String? {
        headers.first { $0.name.lowercased() == name.lowercased() }?.value
    }

    /// Same method, URL, headers in order, body and timeout.
    package static func == (lhs: HTTPClientRequest, rhs: HTTPClientRequest) -> Bool {
        lhs.method == rhs.method && lhs.url == rhs.url && lhs.body == rhs.body && lhs.timeout == rhs.timeout
            && lhs.headers.elementsEqual(rhs.headers) { $0.name == $1.name && $0.value == $1.value }
    }
}
