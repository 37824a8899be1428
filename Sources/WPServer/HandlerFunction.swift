/// An ``HTTPHandler`` made from a closure.
///
/// ```swift
/// let hello = HandlerFunction { _ in .text("hello\n") }
/// ```
public struct HandlerFunction: HTTPHandler {
    private let body: @Sendable (HTTPRequest) async throws -> HTTPResponse

    public init(_ body: @escaping @Sendable (HTTPRequest) async throws -> HTTPResponse) {
        self.body = body
    }

    public func handle(_ request: HTTPRequest) async throws -> HTTPResponse {
        try await body(request)
    }
}
