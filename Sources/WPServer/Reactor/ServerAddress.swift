/// The address a server is listening on, as bound (the real port when port 0 was asked for).
public struct ServerAddress: Sendable, Equatable, Hashable, CustomStringConvertible {
    /// The bound IP address, e.g. `127.0.0.1`, `::` or `0.0.0.0`.
    public var host: String
    /// The bound port.
    public var port: Int

    /// Creates the address `host:port`.
    public init(host: String, port: Int) {
        self.host = host
        self.port = port
    }

    /// `host:port`, with IPv6 hosts in brackets (`[::1]:9090`).
    public var description: String { host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)" }
}
