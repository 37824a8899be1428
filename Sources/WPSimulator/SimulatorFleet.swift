import WPText
import WPRuntime
import Synchronization
public import WPLogging
import WPServer

/// Several independent simulated WinPower servers, for a multi-server exporter: each has its
/// own port, its own devices (no device id is shared) and its own tokens; any of them can be
/// down, hang or reject the password.
///
/// ```swift
/// var configuration = SimulatorFleet.Configuration(servers: 3, devicesPerServer: 5)
/// configuration.faults = [1: .down, 2: .rejectsPassword]
/// let fleet = SimulatorFleet(configuration: configuration)
/// let urls = try await fleet.start()       // ["http://127.0.0.1:40411", ...]
/// await fleet.stop()
/// ```
public final class SimulatorFleet: Sendable {
    /// How one server of the fleet misbehaves. `rawValue` is the name `--fault-server` takes.
    public enum Fault: String, Sendable, Hashable, CaseIterable {
        /// Connections are refused (the port is bound but never listens; see ``ReservedPort``).
        case down
        /// Connections are accepted by the kernel and never answered (see ``ReservedPort``).
        case hang
        /// Every login answers HTTP 401 with the real server's body, whatever the credentials.
        case rejectsPassword = "rejects-password"
    }

    /// The fleet's shape. Every server uses ``server``'s settings (credentials, token lifetime,
    /// page size, epoch, ...), with its own devices and tokens.
    public struct Configuration: Sendable {
        /// Number of servers.
        public var servers: Int
        /// Simulated devices on each server.
        public var devicesPerServer: Int
        /// Faults by 0-based server index; the others behave.
        public var faults: [Int: Fault] = [:]
        /// Address every server binds (loopback by default).
        public var host = "127.0.0.1"
        /// Port of server 0; server `i` gets `firstPort + i`. 0 (the default) picks a free port
        /// for each.
        public var firstPort = 0
        /// The settings every simulated server starts from.
        public var server = WinPowerSimulator.Configuration()

        /// Creates a fleet of `servers` servers with `devicesPerServer` devices each, every one
        /// behaving.
        public init(servers: Int, devicesPerServer: Int = 3) {
            self.servers = servers
            self.devicesPerServer = devicesPerServer
        }
    }

    /// One server of a started fleet.
    public struct Member: Sendable {
        /// 0-based position in the fleet.
        public var index: Int
        /// `http://host:port`, the `base_url` to configure.
        public var baseURL: String
        /// The fault it was started with, if any.
        public var fault: Fault?
        /// The simulator answering requests; nil for `down` and `hang`, which answer nothing.
        public var simulator: WinPowerSimulator?
    }

    private enum Runner: Sendable {
        case served(SimulatorServer)
        case reserved(ReservedPort)
    }

    /// The fleet's shape, as created.
    public let configuration: Configuration
    private let clock: any Clock<Duration>
    private let logger: WPLogger
    private let state = Mutex<(members: [Member], runners: [Runner])>(([], []))

    /// Creates the fleet; no server runs until ``start()``.
    ///
    /// - Parameters:
    ///   - configuration: how many servers, devices and faults.
    ///   - clock: drives every simulator's token time and power curves.
    ///   - logger: the simulators' request summaries.
    public init(configuration: Configuration, clock: any Clock<Duration> = ContinuousClock(), logger: WPLogger = .disabled) {
        self.configuration = configuration
        self.clock = clock
        self.logger = logger
    }

    /// The servers once ``start()`` returned, in index order.
    public var members: [Member] { state.withLock { $0.members } }

    /// Starts every server; on a failure the ones started are stopped again.
    ///
    /// - Returns: each server's base URL, in index order.
    /// - Throws: the bind error of the first server that cannot start.
    @discardableResult
    public func start() async throws -> [String] {
        for index in 0..<max(0, configuration.servers) {
            do {
                try await startMember(index)
            } catch {
                await stop()
                throw error
            }
        }
        return members.map(\.baseURL)
    }

    private func startMember(_ index: Int) async throws {
        let fault = configuration.faults[index]
        let port = configuration.firstPort == 0 ? 0 : configuration.firstPort + index
        let host = configuration.host
        let member: Member
        let runner: Runner
        switch fault {
        case .down?, .hang?:
            let reserved = try ReservedPort(host: host, port: port, mode: fault == .down ? .refusing : .silent)
            member = Member(index: index, baseURL: Self.url(host: host, port: reserved.port), fault: fault)
            runner = .reserved(reserved)
        case .rejectsPassword?, nil:
            var settings = configuration.server
            settings.deviceCount = configuration.devicesPerServer
            settings.firstDeviceIndex = index * max(0, configuration.devicesPerServer)
            settings.tokenNamespace = index + 1
            if fault == .rejectsPassword { settings.faults.insert(.wrongCredentials) }
            let simulator = WinPowerSimulator(configuration: settings, clock: clock, logger: logger)
            let server = SimulatorServer(simulator: simulator, host: host, port: port, logger: logger)
            let address = try await server.start()
            member = Member(index: index, baseURL: Self.url(host: host, port: address.port), fault: fault,
                            simulator: simulator)
            runner = .served(server)
        }
        state.withLock { state in
            state.members.append(member)
            state.runners.append(runner)
        }
    }

    /// Stops every server and releases every port. Idempotent.
    public func stop() async {
        let runners = state.withLock { state in
            defer { state.runners = [] }
            return state.runners
        }
        for runner in runners {
            switch runner {
            case .served(let server): await server.stop()
            case .reserved(let port): port.close()
            }
        }
    }

    /// `http://host:port`, brackets around an IPv6 address.
    static func url(host: String, port: Int) -> String {
        "http://\(host.contains(":") ? "[\(host)]" : host):\(port)"
    }

    /// Parses `--fault-server` values: `INDEX=FAULT`, comma-separated (`1=down,2=hang`).
    ///
    /// - Throws: ``SimulatorFleetError/unknownFault(_:)`` for a bad entry.
    public static func parseFaults(_ text: String) throws(SimulatorFleetError) -> [Int: Fault] {
        var faults: [Int: Fault] = [:]
        for entry in text.split(separator: ",") {
            let parts = entry.split(separator: "=", maxSplits: 1).map { String($0.trimmingBlanks()) }
            guard parts.count == 2, let index = Int(parts[0]), index >= 0, let fault = Fault(rawValue: parts[1]) else {
                throw .unknownFault(String(entry))
            }
            faults[index] = fault
        }
        return faults
    }
}
