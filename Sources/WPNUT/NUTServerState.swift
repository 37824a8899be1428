import Synchronization

/// One UPS as the bridge serves it at one moment.
public struct NUTUPS: Sendable {
    /// The NUT name (``NUTNames``).
    public var name: String
    /// `LIST UPS` and `GET UPSDESC`: the alias and model.
    public var description: String
    /// Every variable, sorted by name; `ups.status` without `FSD` (the server adds it).
    public var variables: [(name: String, value: String)]
    /// The device's data is older than the staleness window, or WinPower is unreachable:
    /// every read answers `ERR DATA-STALE`.
    public var isStale: Bool
    /// On mains with the charge above the low threshold: a forced shutdown set earlier is
    /// cleared (as upsd clears it when the driver reports the UPS back).
    public var clearsForcedShutdown: Bool

    public init(name: String, description: String, variables: [(name: String, value: String)], isStale: Bool,
                clearsForcedShutdown: Bool) {
        self.name = name
        self.description = description
        self.variables = variables
        self.isStale = isStale
        self.clearsForcedShutdown = clearsForcedShutdown
    }

    /// The value of `variable` (any case, as upsd compares names), if the UPS has it.
    public func value(of variable: String) -> String? {
        if let exact = variables.first(where: { $0.name == variable }) { return exact.value }
        let lowered = variable.lowercased()
        return variables.first { $0.name.lowercased() == lowered }?.value
    }
}

/// Where the server reads its UPSs from (the collectors' published readings, in the exporter).
public protocol NUTDataSource: Sendable {
    /// Every UPS, in `LIST UPS` order.
    func upsList() -> [NUTUPS]
    /// The UPS named `name` in any case (NUT names compare case-insensitively, as upsd's do;
    /// the UPS's ``NUTUPS/name`` is its own spelling), or `nil`.
    func ups(named name: String) -> NUTUPS?
}

/// What the server's connections share: forced shutdowns set by primaries, and who is logged
/// into which UPS (`GET NUMLOGINS`, `LIST CLIENT`). One short lock, never held across I/O.
public final class NUTServerState: Sendable {
    private struct State {
        var forcedShutdown: Set<String> = []
        /// Client addresses logged in, per UPS name (one entry per login).
        var logins: [String: [String]] = [:]
    }

    private let state = Mutex(State())

    public init() {}

    /// Marks `ups` for a forced shutdown (`FSD`).
    public func setForcedShutdown(_ ups: String) {
        _ = state.withLock { $0.forcedShutdown.insert(ups) }
    }

    /// Whether `ups` carries `FSD`, clearing it first when the UPS is back (``NUTUPS/clearsForcedShutdown``).
    public func isForcedShutdown(_ ups: NUTUPS) -> Bool {
        state.withLock { state in
            guard state.forcedShutdown.contains(ups.name) else { return false }
            if ups.clearsForcedShutdown && !ups.isStale {
                state.forcedShutdown.remove(ups.name)
                return false
            }
            return true
        }
    }

    /// Records a login of `client` into `ups`.
    public func login(_ ups: String, client: String) {
        state.withLock { $0.logins[ups, default: []].append(client) }
    }

    /// Removes one login of `client` from `ups`.
    public func logout(_ ups: String, client: String) {
        state.withLock { state in
            guard var clients = state.logins[ups], let index = clients.firstIndex(of: client) else { return }
            clients.remove(at: index)
            state.logins[ups] = clients.isEmpty ? nil : clients
        }
    }

    /// Logins now, over every UPS.
    public var loginCount: Int { state.withLock { $0.logins.values.reduce(0) { $0 + $1.count } } }

    /// The clients logged into `ups`, most recent first (as upsd lists them).
    public func clients(of ups: String) -> [String] {
        state.withLock { ($0.logins[ups] ?? []).reversed() }
    }
}
