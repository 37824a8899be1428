import Synchronization

/// One UPS as the bridge serves it at one moment.
package struct NUTUPS: Sendable {
    /// Whether a UPS's variables may be read, as upsd decides it for its driver.
    package enum Availability: Sendable, Equatable {
        /// Readings within the staleness age: every read answers.
        case fresh
        /// The last readings are too old, or the device is disconnected: reads answer
        /// `ERR DATA-STALE` (upsd: the driver stopped updating).
        case stale
        /// No readings since the start (a UPS remembered from before a restart while WinPower
        /// is unreachable): reads answer `ERR DRIVER-NOT-CONNECTED` (upsd: driver down).
        case driverNotConnected
    }

    /// The NUT name (``NUTNames``): the UPS's one identity, whatever name a client used to reach
    /// it (logins, `FSD` and `LIST CLIENT` go by it).
    package var name: String
    /// `LIST UPS` and `GET UPSDESC`: the alias and model (made printable ASCII on the wire).
    package var description: String
    /// Every variable, sorted by name; `ups.status` without `FSD` (the server adds it).
    package var variables: [(name: String, value: String)]
    package var availability: Availability

    package init(name: String, description: String, variables: [(name: String, value: String)],
                availability: Availability = .fresh) {
        self.name = name
        self.description = description
        self.variables = variables
        self.availability = availability
    }

    /// The value of `variable` (any case, as upsd compares names), if the UPS has it.
    package func value(of variable: String) -> String? {
        if let exact = variables.first(where: { $0.name == variable }) { return exact.value }
        let lowered = variable.lowercased()
        return variables.first { $0.name.lowercased() == lowered }?.value
    }
}

/// Where the server reads its UPSs from (the collectors' published readings, in the exporter).
package protocol NUTDataSource: Sendable {
    /// Every UPS, in `LIST UPS` order.
    func upsList() -> [NUTUPS]
    /// The UPS named `name` in any case (NUT names compare case-insensitively, as upsd's do), or
    /// `nil`. An alias (`ups`) gives the UPS it stands for, under its own ``NUTUPS/name``.
    func ups(named name: String) -> NUTUPS?
}

/// What the server's connections share: forced shutdowns set by primaries, who is logged into
/// which UPS (`GET NUMLOGINS`, `LIST CLIENT`), by the UPS's ``NUTUPS/name`` (any case), and the
/// password checks of suspect hosts under way.
/// One short lock, never held across I/O.
package final class NUTServerState: Sendable {
    private struct State {
        var forcedShutdown: Set<String> = []
        /// Client addresses logged in, per UPS name (one entry per login).
        var logins: [String: [String]] = [:]
        /// Suspect hosts with a password check under way (one at a time each).
        var suspectChecks: Set<String> = []
    }

    private let state = Mutex(State())
    private let onForcedShutdown: @Sendable (ForcedShutdown) -> Void

    /// Who set `FSD` on which UPS, for the log: every host on that UPS is about to shut down.
    package struct ForcedShutdown: Sendable, Equatable {
        /// The UPS, as the client named it.
        package var ups: String
        /// The NUT user that sent `FSD` (a `primary`).
        package var user: String
        /// The client's address and port.
        package var client: String
        /// `false` when the UPS carried `FSD` already (another primary, or the same again).
        package var first: Bool
    }

    /// - Parameter onForcedShutdown: told of every `FSD` a primary sends, after the flag is set
    ///   (on the connection's task; keep it short: log, count).
    package init(onForcedShutdown: @escaping @Sendable (ForcedShutdown) -> Void = { _ in }) {
        self.onForcedShutdown = onForcedShutdown
    }

    /// Marks `ups` for a forced shutdown (`FSD`). As upsd's flag, it stays until the process
    /// ends, whatever the UPS does afterwards (mains back included): a secondary that has not
    /// polled yet still follows the primary that is already going down.
    ///
    /// - Parameters:
    ///   - ups: the UPS's name.
    ///   - user: the primary that asked, for ``init(onForcedShutdown:)``.
    ///   - client: its address.
    package func setForcedShutdown(_ ups: String, user: String = "", client: String = "") {
        let first = state.withLock { $0.forcedShutdown.insert(ups.lowercased()).inserted }
        onForcedShutdown(ForcedShutdown(ups: ups, user: user, client: client, first: first))
    }

    /// Whether `ups` carries `FSD`.
    package func isForcedShutdown(_ ups: String) -> Bool {
        state.withLock { $0.forcedShutdown.contains(ups.lowercased()) }
    }

    /// Starts the one password check a suspect `host` may have under way; `false` when one is
    /// under way already.
    package func beginSuspectCheck(of host: String) -> Bool {
        state.withLock { $0.suspectChecks.insert(host).inserted }
    }

    /// Ends the check ``beginSuspectCheck(of:)`` started.
    package func endSuspectCheck(of host: String) {
        _ = state.withLock { $0.suspectChecks.remove(host) }
    }

    /// Records a login of `client` into `ups`.
    package func login(_ ups: String, client: String) {
        state.withLock { $0.logins[ups.lowercased(), default: []].append(client) }
    }

    /// Removes one login of `client` from `ups`.
    package func logout(_ ups: String, client: String) {
        state.withLock { state in
            let key = ups.lowercased()
            guard var clients = state.logins[key], let index = clients.firstIndex(of: client) else { return }
            clients.remove(at: index)
            state.logins[key] = clients.isEmpty ? nil : clients
        }
    }

    /// Logins now, over every UPS.
    package var loginCount: Int { state.withLock { $0.logins.values.reduce(0) { $0 + $1.count } } }

    /// The clients logged into `ups`, most recent first (as upsd lists them).
    package func clients(of ups: String) -> [String] {
        state.withLock { ($0.logins[ups.lowercased()] ?? []).reversed() }
    }
}
