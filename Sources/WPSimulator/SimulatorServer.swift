import Synchronization
import WPLogging
import WPServer

/// Serves a ``WinPowerSimulator`` over real sockets with WPServer's ``HTTPServer``.
///
/// Besides plain serving, the socket runner gives ``WinPowerSimulator/Fault/unreachable`` its
/// real meaning: while the fault is active the listening socket is closed and the port held
/// without listening (a ``ReservedPort``), so connections are refused exactly as with a WinPower
/// server that is down and no other socket of the machine can take the port meanwhile; clearing
/// the fault listens again on the same port.
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
        var server: HTTPServer?
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
        let reserved = try ReservedPort(host: host, port: port, mode: .refusing)
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
            await closeListener()
            let (address, held) = state.withLock { ($0.address, $0.reserved != nil || $0.stopped) }
            guard !held, let address else { return }
            let reserved = try ReservedPort(host: host, port: address.port, mode: .refusing, reusingAddress: true)
            state.withLock { $0.reserved = reserved }
        } else {
            simulator.disable(.unreachable)
            let listening = state.withLock { $0.server != nil || $0.stopped }
            guard !listening, let address else { return }
            // Released just before listening: the port was never free for anyone else.
            state.withLock { $0.reserved.take() }?.close()
            try await listen(port: address.port)
        }
    }

    /// Stops serving and closes every connection. Idempotent.
    public func stop() async {
        state.withLock { $0.stopped = true }
        await closeListener()
        state.withLock { $0.reserved.take() }?.close()
    }

    @discardableResult
    private func listen(port: Int) async throws -> ServerAddress {
        var configuration = HTTPServer.Configuration(host: host, port: port)
        configuration.raiseOpenFilesLimit = false
        configuration.shutdownGracePeriod = .seconds(2)
        let server = HTTPServer(configuration: configuration, handler: simulator, logger: logger)
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
