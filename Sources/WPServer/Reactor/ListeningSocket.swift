import WPRuntime
import WPCSystem

/// Opening a listening socket, shared by ``WPHTTPServer``, ``LineServer`` and ``DatagramServer``.
enum ListeningSocket {
    /// Binds and listens on `host:port` (port 0: any free port).
    ///
    /// - Returns: the descriptor and the address it is bound to (the port chosen for 0).
    /// - Throws: ``ServerError/bind(address:reason:)`` naming the address asked for.
    /// With `datagram`, a UDP socket bound to `host:port` (no backlog). With `sharesPort`,
    /// `SO_REUSEPORT`: another socket of the same user setting it may bind the port meanwhile.
    static func open(host: String, port: Int, backlog: Int, datagram: Bool = false,
                     sharesPort: Bool = false) throws(ServerError) -> (descriptor: Int32, address: ServerAddress) {
        let requested = ServerAddress(host: host, port: port).description
        guard (0...65535).contains(port) else { throw .bind(address: requested, reason: "port out of range 0...65535") }
        let descriptor = cs_bind_socket(host, Int32(port), Int32(datagram ? CS_SOCK_DGRAM : CS_SOCK_STREAM), Int32(backlog),
                                        sharesPort ? Int32(CS_SHARE_PORT) : 0)
        guard descriptor >= 0 else { throw .bind(address: requested, reason: String(cString: cs_listen_error(descriptor))) }
        var name = [CChar](repeating: 0, count: 64)
        var bound: Int32 = 0
        _ = name.withUnsafeMutableBufferPointer { cs_local_address(descriptor, $0.baseAddress, $0.count, &bound) }
        let address = ServerAddress(host: String(cBuffer: name),
                                    port: Int(bound))
        return (descriptor, address)
    }
}
