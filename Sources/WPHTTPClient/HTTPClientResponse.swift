/// A complete HTTP response: any status, including 3xx (redirects are not followed) and
/// 4xx/5xx.
package struct HTTPClientResponse: Sendable {
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
}
