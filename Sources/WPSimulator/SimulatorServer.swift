import Synchronization
import WPLogging
import WPServer

/// Serves a ``WinPowerSimulator`` over real sockets with WPServer's ``HTTPServer``.
///
/// Besides plain serving, the socket runner gives ``WinPowerSimulator/Fault/unreachable`` its
/// real meaning: while the fault is active the listening socket is closed, so connections are
/// refused exactly as with a WinPower server that is down; clearing the fault listens again on
/// the same port.
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
        var stopped = false
    }

    /// The simulator answering requests.
    public let simulator: WinPowerSimulator
    private let host: String
    private let port: Int
    private let logger: Logger
    private let state = Mutex(State())

    /// Creates a runner; nothing is bound until ``start()``.
    ///
    /// - Parameters:
    ///   - simulator: the simulated WinPower server.
    ///   - host: address to bind (`127.0.0.1` by default).
    ///   - port: port to bind; 0 picks a free one.
    ///   - logger: receives the HTTP server's lifecycle lines.
    public init(simulator: WinPowerSimulator, host: String = "127.0.0.1", port: Int = 0, logger: Logger = .disabled) {
        self.simulator = simulator
        self.host = host
        self.port = port
        self.logger = logger
    }

    /// The bound address (the real port when 0 was asked), once ``start()`` returned.
    public var address: ServerAddress? { state.withLock { $0.address } }

    /// Binds and starts serving. When the simulator starts with the `unreachable` fault, the
    /// port is bound once (to learn it) and closed again at once.
    ///
    /// - Returns: the bound address.
    /// - Throws: `ServerError.bind` when the address cannot be used.
    @discardableResult
    public func start() async throws -> ServerAddress {
        let address = try await listen(port: port)
        if simulator.isUnreachable { await closeListener() }
        return address
    }

    /// Switches the `unreachable` fault: `true` closes the listening socket (connections are
    /// refused), `false` listens again on the same port.
    ///
    /// - Throws: `ServerError.bind` when the port was taken in the meantime.
    public func setUnreachable(_ unreachable: Bool) async throws {
        if unreachable {
            simulator.enable(.unreachable)
            await closeListener()
        } else {
            simulator.disable(.unreachable)
            let listening = state.withLock { $0.server != nil || $0.stopped }
            guard !listening, let address else { return }
            try await listen(port: address.port)
        }
    }

    /// Stops serving and closes every connection. Idempotent.
    public func stop() async {
        state.withLock { $0.stopped = true }
        await closeListener()
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
