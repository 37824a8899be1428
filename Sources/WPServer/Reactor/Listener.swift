/// A server that listens: ``WPHTTPServer`` and ``LineServer``, or a fake of a test or an
/// embedder that serves without a socket (the exporter takes its listeners through this seam:
/// `Exporter.Options.listeners`).
///
/// ```swift
/// let running = Task { try await listener.run() }      // serves until the task is cancelled
/// let address = try await listener.waitUntilListening()
/// ```
public protocol Listener<Statistics>: Sendable {
    /// What the listener reports of itself beyond its connections (``LineServerStatistics``).
    associatedtype Statistics: Sendable

    /// Binds, then serves until the calling task is cancelled; then shuts down gracefully.
    /// - Throws: when it cannot listen (``ServerError``).
    func run() async throws

    /// Returns the address once ``run()`` listens; throws what stopped it from listening.
    func waitUntilListening() async throws -> ServerAddress

    /// The address while listening; `nil` before and after.
    var address: ServerAddress? { get }

    /// What the listener's connections have done (`*_connections_open`, `*_connections_total`).
    var connectionStatistics: ConnectionStatistics { get }

    /// The listener's own figures.
    var statistics: Statistics { get }
}

extension WPHTTPServer: Listener {
    /// ``statistics``: an HTTP server's figures are its connections'.
    public var connectionStatistics: ConnectionStatistics { statistics }
}

extension LineServer: Listener {}
