/// A complete HTTP response: any status, including 3xx (redirects are not followed) and
/// 4xx/5xx.
package struct HTTPClientResponse: Sendable, Equatable {
    /// The status code, e.g. 200.
    package var status: Int
    /// Header fields in the order received.
    package var headers: [(name: String, value: String)]
    /// The whole body, de-chunked.
    package var body: [UInt8]

    /// Creates a response.
    package init(status: Int, headers: [(name: String, value: String)] = [], body: [UInt8] = []) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// The first value of header `name` (case-insensitive).
    package func header(_ name: String) -> String? {
        headers.first { $0.name.lowercased() == name.lowercased() }?.value
    }

    /// Same status, headers in order and body.
    package static func == (lhs: HTTPClientResponse, rhs: HTTPClientResponse) -> Bool {
        lhs.status == rhs.status && lhs.body == rhs.body
            && lhs.headers.elementsEqual(rhs.headers) { $0.name == $1.name && $0.value == $1.value }
    }
}
