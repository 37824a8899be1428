import WPCSystem
import Glibc
import Synchronization
import WPRuntime
import WPLogging

/// An HTTP/1.1 server on POSIX sockets: one epoll event loop thread for all connections,
/// handlers run as Swift tasks.
///
/// The server parses requests on its loop, calls the ``HTTPHandler`` for each, and writes the
/// responses back in order (pipelining included). Everything that keeps it alive on the open
/// internet — header, body and connection caps, slowloris and idle timeouts, write timeouts for
/// peers that stop reading — is set in ``Configuration``.
///
/// ```swift
/// let server = HTTPServer(configuration: .init(host: "::", port: 9090), handler: router, logger: log)
/// try await withThrowingTaskGroup(of: Void.self) { group in
///     group.addTask { try await server.run() }
///     let address = try await server.waitUntilListening()
///     log.info("listening", ["address": "\(address)"])
///     try await group.next()
/// }
/// ```
public final class HTTPServer: Sendable {
    private enum State {
        case idle
        case starting
        case listening(ServerAddress)
        case failed(HTTPServerError)
        case finished
    }

    public let configuration: Configuration
    private let handler: any HTTPHandler
    private let observer: (any RequestObserver)?
    let logger: Logger
    private let state = Mutex(State.idle)
    private let waiters = Mutex<[UInt64: CheckedContinuation<ServerAddress, any Error>]>([:])
    private let nextWaiter = Atomic<UInt64>(0)

    /// Creates a server; nothing is bound until ``run()``.
    ///
    /// - Parameters:
    ///   - configuration: Address, limits and timeouts.
    ///   - handler: Answers every request; usually a ``Router``.
    ///   - logger: Receives lifecycle and error lines, and an access log line per request at
    ///     debug level (method, path, status, bytes, duration; never request headers).
    ///   - observer: Told of every request the server refuses before a handler sees it
    ///     (`400`, `408`, `413`, `417`, `431`, `501`, `503`, `505`), under the handler name
    ///     `refused`.
    public init(configuration: Configuration, handler: any HTTPHandler, logger: Logger,
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
    /// - Throws: ``HTTPServerError/bind(address:reason:)`` when the address cannot be used
    ///   (in use, permission denied, unknown host); ``HTTPServerError/alreadyStarted`` when
    ///   called twice.
    public func run() async throws {
        let started = state.withLock { state -> Bool in
            guard case .idle = state else { return false }
            state = .starting
            return true
        }
        guard started else { throw HTTPServerError.alreadyStarted }
        let loop: EventLoop
        let address: ServerAddress
        do {
            (loop, address) = try bind()
        } catch let error as HTTPServerError {
            state.withLock { $0 = .failed(error) }
            resumeWaiters(.failure(error))
            throw error
        }
        state.withLock { $0 = .listening(address) }
        resumeWaiters(.success(address))
        logger.info("http server listening", ["address": .string(address.description)])
        let outcome: Result<Void, HTTPServerError> = await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                do throws(ThreadStartError) {
                    try NamedThread.start(name: "http-loop") {
                        loop.runLoop()
                        continuation.resume(returning: .success(()))
                    }
                } catch {
                    loop.discard()
                    continuation.resume(returning: .failure(.system(operation: "pthread_create", reason: error.description)))
                }
            }
        } onCancel: {
            loop.requestShutdown()
        }
        if case .failure(let error) = outcome {
            state.withLock { $0 = .failed(error) }
            throw error
        }
        state.withLock { $0 = .finished }
        logger.info("http server stopped", ["address": .string(address.description)])
    }

    /// Waits until ``run()`` has bound its socket and returns the bound address.
    ///
    /// - Returns: The address, with the real port when port 0 was configured.
    /// - Throws: The bind error when `run()` failed to bind, ``HTTPServerError/notListening``
    ///   when the server already stopped, `CancellationError` when the waiting task is cancelled.
    public func waitUntilListening() async throws -> ServerAddress {
        let id = nextWaiter.add(1, ordering: .relaxed).newValue
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                let immediate: Result<ServerAddress, any Error>? = state.withLock { state in
                    switch state {
                    case .listening(let address): return .success(address)
                    case .failed(let error): return .failure(error)
                    case .finished: return .failure(HTTPServerError.notListening)
                    case .idle, .starting:
                        // Checked under the waiters' lock: a cancellation before this point ran
                        // `onCancel` when there was no waiter to resume; one after it finds it.
                        let stored = waiters.withLock { waiters in
                            if Task.isCancelled { return false }
                            waiters[id] = continuation
                            return true
                        }
                        return stored ? nil : .failure(CancellationError())
                    }
                }
                if let immediate { continuation.resume(with: immediate) }
            }
        } onCancel: {
            waiters.withLock { $0.removeValue(forKey: id) }?.resume(throwing: CancellationError())
        }
    }

    private func resumeWaiters(_ result: Result<ServerAddress, HTTPServerError>) {
        let pending = waiters.withLock { waiters in
            defer { waiters.removeAll() }
            return Array(waiters.values)
        }
        for continuation in pending { continuation.resume(with: result.mapError { $0 as any Error }) }
    }

    private func bind() throws -> (EventLoop, ServerAddress) {
        let before = cs_nofile_limit()
        var openFiles = before
        if configuration.raiseOpenFilesLimit {
            openFiles = cs_raise_nofile_limit()
            if openFiles > before {
                logger.info("raised open files limit", ["from": .int(before), "to": .int(openFiles)])
            }
            if openFiles < 0 { openFiles = before }
        }
        let limit = openFiles > 0 ? openFiles : Int.max
        let connectionLimit = EventLoop.connectionLimit(configuration: configuration, openFilesLimit: limit)
        if connectionLimit < configuration.maxConnections {
            logger.info("connection cap lowered to fit the open files limit",
                        ["open_files": .int(openFiles), "reserved": .int(configuration.reservedDescriptors),
                         "max_connections": .int(connectionLimit)])
        }
        let tls = try makeTLSContextStore()
        let (descriptor, address) = try ListeningSocket.open(host: configuration.host, port: configuration.port,
                                                             backlog: configuration.backlog)
        do {
            let loop = try EventLoop(listener: descriptor, configuration: configuration, handler: handler, logger: logger,
                                     tls: tls, observer: observer, openFilesLimit: limit)
            return (loop, address)
        } catch {
            _ = cs_close(descriptor)
            throw error
        }
    }
}
