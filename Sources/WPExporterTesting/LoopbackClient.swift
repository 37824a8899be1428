import Foundation
import WPCompression
import WPHTTPClient

/// An HTTP/1.1 client for tests that ask a listener on this host: the service an embedder
/// serves (its own routes, the exporter's endpoints mounted beside them) over a real socket.
///
/// It sends what it is given, headers included, and hands back the answer as it came, not
/// decompressed (``LoopbackResponse/decompressedBody()`` does that), so a test sees what a
/// scraper sees.
///
/// ```swift
/// let client = LoopbackClient()
/// let page = try await client.send("GET", url: "http://127.0.0.1:\(port)/metrics")
/// #expect(page.status == 200)
/// #expect(page.text.contains("winpower_exporter_up 1"))
/// ```
public struct LoopbackClient: Sendable {
    private let client: HTTPClient

    /// A client that waits at most `timeout` for each answer.
    public init(timeout: Duration = .seconds(30)) {
        var configuration = HTTPClient.Configuration(userAgent: "wpexporter-testing")
        configuration.maxThreads = 2
        client = HTTPClient(configuration: configuration)
        self.timeout = timeout
    }

    /// How long ``send(_:url:headers:body:)`` waits for an answer.
    public let timeout: Duration

    /// Sends one request and returns the answer.
    ///
    /// - Parameters:
    ///   - method: `GET`, `HEAD`, `POST`…
    ///   - url: an `http://` URL.
    ///   - headers: the request's fields, in order, as sent.
    ///   - body: the request's body (sent with its `Content-Length`).
    /// - Throws: ``LoopbackClientError`` when the URL is not one, or nothing answered.
    public func send(_ method: String = "GET", url: String, headers: [(name: String, value: String)] = [],
                     body: [UInt8] = []) async throws(LoopbackClientError) -> LoopbackResponse {
        guard let parsed = URL(string: url), parsed.scheme == "http" else { throw .invalidURL(url) }
        do {
            let response = try await client.send(HTTPClientRequest(method: method, url: parsed, headers: headers,
                                                                  body: body, timeout: timeout))
            return LoopbackResponse(status: response.status, headers: response.headers, body: response.body)
        } catch {
            throw .noAnswer(url: url, reason: "\(error)")
        }
    }
}

/// What a ``LoopbackClient`` was answered.
public struct LoopbackResponse: Sendable {
    /// The status code.
    public var status: Int
    /// The header fields, in order, names as sent.
    public var headers: [(name: String, value: String)]
    /// The body as sent (compressed when the answer says `Content-Encoding: gzip`).
    public var body: [UInt8]

    /// Creates an answer from its status, header fields and body.
    public init(status: Int, headers: [(name: String, value: String)], body: [UInt8]) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// The value of the first field named `name` (any case), or `nil`.
    public func header(_ name: String) -> String? {
        headers.first { $0.name.lowercased() == name.lowercased() }?.value
    }

    /// Every value of the fields named `name` (any case), in order.
    public func headers(named name: String) -> [String] {
        headers.filter { $0.name.lowercased() == name.lowercased() }.map(\.value)
    }

    /// The body as UTF-8 text.
    public var text: String { String(decoding: body, as: UTF8.self) }

    /// The body decompressed: a gzip body (every member) as its bytes, any other as it is.
    ///
    /// - Throws: ``LoopbackClientError/notGzip`` when the answer says gzip and the body is not.
    public func decompressedBody() throws(LoopbackClientError) -> [UInt8] {
        guard header("Content-Encoding")?.lowercased() == "gzip" else { return body }
        guard let plain = Gzip.decompress(body) else { throw .notGzip }
        return plain
    }
}

/// Why a ``LoopbackClient`` request failed.
public enum LoopbackClientError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The URL is not an `http://` URL.
    case invalidURL(String)
    /// Nothing answered (refused, reset, timed out) or the answer was not HTTP.
    case noAnswer(url: String, reason: String)
    /// The answer says `Content-Encoding: gzip`, and its body is not gzip.
    case notGzip

    /// What failed, with the URL and the reason where there are any.
    public var description: String {
        switch self {
        case .invalidURL(let url): "not an http:// URL: \(url)"
        case .noAnswer(let url, let reason): "no answer from \(url): \(reason)"
        case .notGzip: "the body is not gzip, though Content-Encoding says so"
        }
    }
}
