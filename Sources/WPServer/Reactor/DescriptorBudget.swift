import WPCSystem

/// The process's open-files limit (`ulimit -n`), read and raised the way ``WPHTTPServer`` does at
/// start.
public enum OpenFilesLimit {
    /// The soft limit now; `nil` when unlimited or unknown.
    public static var current: Int? {
        let limit = cs_nofile_limit()
        return limit > 0 ? limit : nil
    }

    /// Raises the soft limit to the hard limit (as the Go runtime does) and returns the limit
    /// then in force; `nil` when unlimited or unknown.
    public static func raiseToHardLimit() -> Int? {
        let raised = cs_raise_nofile_limit()
        return raised > 0 ? raised : current
    }
}

/// How a process's open-files limit is shared between what it must hold (its own files,
/// event loops, sockets to upstream servers) and connections from clients: the HTTP and line
/// servers' caps come out of what is left, and a limit too low to serve at all is an error
/// naming the numbers, not a server that accepts and never answers.
public struct DescriptorBudget: Sendable, Equatable {
    /// The fewest connections a listener is given: fewer cannot serve a scraper and a prober.
    public static let minimumConnections = 4

    /// The open-files limit shared out.
    public var limit: Int
    /// Descriptors the process holds apart from client connections.
    public var reserved: Int
    /// The HTTP listener's connection cap.
    public var httpConnections: Int
    /// The caps of the other listeners, in the order they asked (``init(limit:reserved:httpConnections:requests:)``):
    /// `nil` where a listener asked for none.
    public var grants: [Int?]

    /// The first other listener's cap (the line server's, NUT's); 0 without one.
    public var lineConnections: Int { grants.lazy.compactMap { $0 }.first ?? 0 }

    /// Shares `limit` out: `reserved` first, then each listener of `requests` in turn gets up
    /// to what it asks but at most a quarter of what is left (never under
    /// ``minimumConnections``), the HTTP listener up to `httpConnections` of what remains.
    ///
    /// - Parameters:
    ///   - limit: the open-files limit.
    ///   - reserved: descriptors the process holds apart from client connections.
    ///   - httpConnections: the HTTP listener's cap when there is room.
    ///   - requests: the connections each other listener holds at most; `nil` for one that
    ///     asks for none (it gets `nil`).
    /// - Throws: ``DescriptorBudgetError`` when a listener would get fewer than
    ///   ``minimumConnections``.
    public init(limit: Int, reserved: Int, httpConnections: Int, requests: [Int?]) throws(DescriptorBudgetError) {
        self.limit = limit
        self.reserved = reserved
        var available = limit - reserved
        grants = requests.map { wanted in
            guard let wanted else { return nil }
            let granted = min(wanted, max(Self.minimumConnections, available / 4))
            available -= granted
            return granted
        }
        self.httpConnections = min(httpConnections, available)
        let needed = reserved + Self.minimumConnections * (1 + requests.lazy.compactMap { $0 }.count)
        guard self.httpConnections >= Self.minimumConnections, limit >= needed else {
            throw DescriptorBudgetError(limit: limit, reserved: reserved, needed: needed)
        }
    }

    /// Shares `limit` out between the HTTP listener and a line server (`lineConnections`, `nil`
    /// without one): ``init(limit:reserved:httpConnections:requests:)`` with that one request.
    ///
    /// - Parameters:
    ///   - limit: the open-files limit.
    ///   - reserved: descriptors the process holds apart from client connections.
    ///   - httpConnections: the HTTP listener's cap when there is room.
    ///   - lineConnections: the line server's cap when there is room; `nil` without one.
    /// - Throws: ``DescriptorBudgetError`` when a listener would get fewer than
    ///   ``minimumConnections``.
    public init(limit: Int, reserved: Int, httpConnections: Int, lineConnections: Int?) throws(DescriptorBudgetError) {
        try self.init(limit: limit, reserved: reserved, httpConnections: httpConnections, requests: [lineConnections])
    }

    /// What ``WPHTTPServer/Configuration/reservedDescriptors`` must be for the HTTP cap to be
    /// ``httpConnections``: everything but HTTP connections.
    public var reservedForHTTP: Int { limit - httpConnections }
}

/// The open-files limit is too low to serve at all.
public struct DescriptorBudgetError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The open-files limit.
    public var limit: Int
    /// Descriptors needed before any client connection.
    public var reserved: Int
    /// Descriptors needed in all: the reserved ones and the fewest connections of each listener.
    public var needed: Int

    /// Creates the error for `limit`, short of `needed`.
    public init(limit: Int, reserved: Int, needed: Int) {
        self.limit = limit
        self.reserved = reserved
        self.needed = needed
    }

    /// The numbers, and how to raise the limit (`ulimit -n`, systemd `LimitNOFILE=`, docker
    /// `--ulimit`).
    public var description: String {
        "the open files limit (ulimit -n) is \(limit), too low to serve: \(reserved) descriptors are needed before "
            + "any client connection and at least \(DescriptorBudget.minimumConnections) per listener, \(needed) in all; "
            + "raise the limit (ulimit -n, systemd LimitNOFILE=, docker --ulimit nofile=) to at least \(needed)"
    }
}
