import WPCSystem
import Glibc
import Synchronization
import WPRuntime
public import WPLogging

/// An HTTP/1.1 server on POSIX sockets: one epoll event loop thread (a `Reactor`) for all
/// connections, handlers run as Swift tasks.
///
/// The server parses requests on its loop, calls the ``HTTPHandler`` for each, and writes the
/// responses back in order (pipelining included). Everything that keeps it alive on the open
/// internet — header, body and connection caps, slowloris and idle timeouts, write timeouts for
/// peers that stop reading — is set in ``Configuration``.
///
/// ```swift
/// let server = WPHTTPServer(configuration: .init(host: "::", port: 9090), handler: router, logger: log)
/// try await withThrowingTaskGroup(of: Void.self) { group in
///     group.addTask { try await server.run() }
///     let address = try await server.waitUntilListening()
///     log.info("listening", ["address": "\(address)"])
///     try await group.next()
/// }
/// ```
public final class WPHTTPServer: Sendable {
    /// Where and how the server listens.
    public let configuration: Configuration
    private let handler: any HTTPHandler
    private let observer: (any RequestObserver)?
    let logger: WPLogger
    private let lifecycle = ListenerLifecycle()
    private let counters = ConnectionCounters()

    /// Creates a server; nothing is bound until ``run()``.
    ///
    /// - Parameters:
    ///   - configuration: Address, limits and timeouts.
    ///   - handler: Answers every request; usually a ``WPRouter``.
    ///   - logger: Receives lifecycle and error lines, and an access log line per request at
    ///     debug level (method, path, status, bytes, duration; never request headers).
    ///   - observer: Told of every request the server refuses before a handler sees it
    ///     (`400`, `408`, `413`, `417`, `431`, `501`, `503`, `505`), under the handler name
    ///     `refused`.
    public init(configuration: Configuration, handler: any HTTPHandler, logger: WPLogger,
                observer: (any RequestObserver)? = nil) {
        self.configuration = configuration
        self.handler = handler
        self.observer = observer
        self.logger = logger
    }

    /// Binds, then serves until the calling task is cancelled; then shuts down gracefully.
    ///
    /// Shutdown stops accepting, closes idle connections, lets requests in flight finish for
    /// up to ``Configuration/shutdownGracePeriod``, then closes everything. When `run()`
    /// returns, every descriptor the server opened is closed.
    ///
    /// - Throws: ``ServerError/bind(address:reason:)`` when the address cannot be used
    ///   (in use, permission denied, unknown host); ``ServerError/alreadyStarted`` when
    ///   called twice.
    public func run() async throws {
        try await lifecycle.serve(kind: "http", logger: logger) { [self] () throws(ServerError) in try bind() }
    }

    /// Waits until ``run()`` has bound its socket and returns the bound address.
    ///
    /// - Returns: The address, with the real port when port 0 was configured.
    /// - Throws: The bind error when `run()` failed to bind, ``ServerError/notListening``
    ///   when the server already stopped, `CancellationError` when the waiting task is cancelled.
    public func waitUntilListening() async throws -> ServerAddress {
        try await lifecycle.waitUntilListening()
    }

    /// The bound address while listening; `nil` before and after.
    public var address: ServerAddress? { lifecycle.address }

    /// What the server's connections have done since it started: accepted, refused and
    /// evicted at the cap, closed by a timeout, open now.
    public var statistics: ConnectionStatistics { counters.current }

    private func bind() throws(ServerError) -> (Reactor<HTTPConnectionDriver>, ServerAddress) {
        let before = OpenFilesLimit.current
        var openFiles = before
        if configuration.raiseOpenFilesLimit {
            openFiles = OpenFilesLimit.raiseToHardLimit()
            if let before, let openFiles, openFiles > before {
                logger.info("raised open files limit", ["from": .int(before), "to": .int(openFiles)])
            }
        }
        let limit = openFiles ?? Int.max
        let connectionLimit = HTTPConnectionDriver.connectionLimit(configuration: configuration, openFilesLimit: limit)
        if connectionLimit < configuration.maxConnections {
            logger.info("connection cap lowered to fit the open files limit",
                        ["open_files": .int(limit), "reserved": .int(configuration.reservedDescriptors),
                         "max_connections": .int(connectionLimit)])
        }
        let tls = try TLSContextStore.make(configuration.tls, logger: logger)
        let (descriptor, address) = try ListeningSocket.open(host: configuration.host, port: configuration.port,
                                                             backlog: configuration.backlog, sharesPort: configuration.sharesPort)
        do {
            let driver = HTTPConnectionDriver(configuration: configuration, handler: handler, observer: observer,
                                              logger: logger)
            let loop = try Reactor(name: "http", listener: descriptor, driver: driver, connectionLimit: connectionLimit, tls: tls,
                                   tlsAtAccept: true, counters: counters, logger: logger)
            return (loop, address)
        } catch {
            _ = cs_close(descriptor)
            throw error
        }
    }
}
