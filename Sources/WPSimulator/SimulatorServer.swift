import Synchronization
public import WPLogging
public import WPServer

/// Serves a ``WinPowerSimulator`` over real sockets with WPServer's `WPHTTPServer`.
///
/// Besides plain serving, the socket runner gives ``WinPowerSimulator/Fault/unreachable`` its
/// real meaning: while the fault is active the listening socket is closed and the port held
/// without listening (a ``ReservedPort``), so connections are refused exactly as with a WinPower
/// server that is down; clearing the fault listens again on the same port. The port is never
/// free in between: the reservation is bound before the listener closes, and the new listener
/// listens before the reservation is released (both set `SO_REUSEADDR` and `SO_REUSEPORT`), so
/// no other socket of the machine can take it.
///
/// ```swift
/// let server = SimulatorServer(simulator: WinPowerSimulator(), port: 0)
/// let address = try await server.start()
/// try await server.setUnreachable(true)    // connections refused
/// try await server.setUnreachable(false)   // back on the same port
/// await server.stop()
/// ```
public final class SimulatorServer: Sendable {
    private struct State {
        var task: Task<Void, any Error>?
        var server: WPHTTPServer?
        var address: ServerAddress?
        /// The port held while unreachable.
        var reserved: ReservedPort?
        var stopped = false
    }

    /// The simulator answering requests.
    public let simulator: WinPowerSimulator
    private let host: String
    private let port: Int
    private let logger: WPLogger
    private let state = Mutex(State())

    /// Creates a runner; nothing is bound until ``start()``.
    ///
    /// - Parameters:
    ///   - simulator: the simulated WinPower server.
    ///   - host: address to bind (`127.0.0.1` by default).
    ///   - port: port to bind; 0 picks a free one.
    ///   - logger: receives the HTTP server's lifecycle lines.
    public init(simulator: WinPowerSimulator, host: String = "127.0.0.1", port: Int = 0, logger: WPLogger = .disabled) {
        self.simulator = simulator
        self.host = host
        self.port = port
        self.logger = logger
    }

    /// The bound address (the real port when 0 was asked), once ``start()`` returned.
    public var address: ServerAddress? { state.withLock { $0.address } }

    /// Binds and starts serving. When the simulator starts with the `unreachable` fault, the
    /// port is only held (bound, not listening: connections are refused).
    ///
    /// - Returns: the bound address.
    /// - Throws: `ServerError.bind` when the address cannot be used (``SimulatorFleetError``
    ///   when it cannot be held, unreachable).
    @discardableResult
    public func start() async throws -> ServerAddress {
        guard simulator.isUnreachable else { return try await listen(port: port) }
        let reserved = try Self.reserve(host: host, port: port)
        let address = ServerAddress(host: host, port: reserved.port)
        state.withLock { state in
            state.reserved = reserved
            state.address = address
        }
        return address
    }

    /// Switches the `unreachable` fault: `true` closes the listening socket and holds the port
    /// (connections are refused), `false` listens again on the same port.
    ///
    /// - Throws: `ServerError.bind` when the port cannot be listened on again.
    public func setUnreachable(_ unreachable: Bool) async throws {
        if unreachable {
            simulator.enable(.unreachable)
            let (address, held) = state.withLock { ($0.address, $0.reserved != nil || $0.stopped) }
            if !held, let address {
                // Held before the listener closes: the port is never free.
                let reserved = try Self.reserve(host: host, port: address.port)
                state.withLock { $0.reserved = reserved }
            }
            await closeListener()
        } else {
            simulator.disable(.unreachable)
            let listening = state.withLock { $0.server != nil || $0.stopped }
            guard !listening, let address else { return }
            // Listening before the reservation is released: the port is never free.
            try await listen(port: address.port)
            state.withLock { $0.reserved.take() }?.close()
        }
    }

    /// Stops serving and closes every connection. Idempotent.
    public func stop() async {
        state.withLock { $0.stopped = true }
        await closeListener()
        state.withLock { $0.reserved.take() }?.close()
    }

    /// The port held while unreachable, shareable with the listener before and after it.
    private static func reserve(host: String, port: Int) throws -> ReservedPort {
        try ReservedPort(host: host, port: port, mode: .refusing, reusingAddress: true, sharingPort: true)
    }

    @discardableResult
    private func listen(port: Int) async throws -> ServerAddress {
        var configuration = WPHTTPServer.Configuration(host: host, port: port)
        configuration.raiseOpenFilesLimit = false
        configuration.sharesPort = true
        configuration.shutdownGracePeriod = .seconds(2)
        // The real server's (Tomcat's) connection timeout: 60 s to send a request, head or body,
        // not WPServer's 10 s slowloris limit — a client on a loaded machine that connects and
        // writes its request a few seconds later is answered, as WinPower would answer it.
        configuration.headTimeout = .seconds(60)
        configuration.bodyTimeout = .seconds(60)
        let server = WPHTTPServer(configuration: configuration, handler: simulator, logger: logger)
        let task = Task { try await server.run() }
        do {
            let address = try await server.waitUntilListening()
            state.withLock { state in
                state.server = server
                state.task = task
                state.address = address
            }
            return address
        } catch {
            task.cancel()
            _ = try? await task.value
            throw error
        }
    }

    private func closeListener() async {
        let task = state.withLock { state -> Task<Void, any Error>? in
            defer { state.task = nil; state.server = nil }
            return state.task
        }
        guard let task else { return }
        task.cancel()
        _ = try? await task.value
    }
}
