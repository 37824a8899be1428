/// An ``HTTPHandler`` made from a closure.
///
/// ```swift
/// let hello = HandlerFunction { _ in .text("hello\n") }
/// ```
public struct HandlerFunction: HTTPHandler {
    private let body: @Sendable (WPHTTPRequest) async throws -> WPHTTPResponse
    private let preRendered: Bool

    /// Creates a handler that answers with `body`.
    ///
    /// - Parameters:
    ///   - preRendered: the closure only hands back bytes already rendered
    ///     (``HTTPHandler/servesPreRenderedBody(_:)``): it may run on the event loop.
    ///   - body: answers each request.
    public init(preRendered: Bool = false, _ body: @escaping @Sendable (WPHTTPRequest) async throws -> WPHTTPResponse) {
        self.body = body
        self.preRendered = preRendered
    }

    /// Whether the handler was created `preRendered`.
    public func servesPreRenderedBody(_ request: WPHTTPRequest) -> Bool { preRendered }

    /// The closure's answer to `request`.
    public func handle(_ request: WPHTTPRequest) async throws -> WPHTTPResponse {
        try await body(request)
    }
}
