#if os(Linux)
import ServiceLifecycle
import WPServer

/// A WPServer ``WPHTTPServer`` as a swift-service-lifecycle `Service` (Linux only, as WPServer).
///
/// `run()` binds and serves. Graceful shutdown of the group stops the server as cancelling its
/// task does: it stops accepting, closes idle connections, lets requests in flight finish
/// within the configuration's `shutdownGracePeriod`, then closes the rest; `run()` returns
/// once every descriptor is closed. A bind failure is thrown from `run()`, which ends the
/// group as any failing service does.
///
/// ```swift
/// let server = WPHTTPServer(configuration: .init(host: "::", port: 9464), handler: router, logger: log)
/// let group = ServiceGroup(configuration: .init(services: [HTTPServerService(server)],
///                                               gracefulShutdownSignals: [.sigterm], logger: logger))
/// try await group.run()
/// ```
public struct HTTPServerService: Service {
    /// The server this service runs; `waitUntilListening()` gives its address.
    public let server: WPHTTPServer

    /// A service running `server`. Run it once: a server is not restarted.
    public init(_ server: WPHTTPServer) {
        self.server = server
    }

    public func run() async throws {
        let server = self.server
        try await cancelWhenGracefulShutdown { try await server.run() }
    }
}
#endif
