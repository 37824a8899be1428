import WPPOSIX
import WPRuntime
import WPCSystem

/// Opening a socket that takes a port: the one socket set-up of ``WPHTTPServer``, ``LineServer``,
/// ``DatagramServer`` and the simulator's reserved ports.
package enum ListeningSocket {
    /// Binds and listens on `host:port` (port 0: any free port).
    ///
    /// - Returns: the descriptor and the address it is bound to (the port chosen for 0).
    /// - Throws: ``ServerError/bind(address:reason:)`` naming the address asked for.
    /// With `datagram`, a UDP socket bound to `host:port` (no backlog). With `sharesPort`,
    /// `SO_REUSEPORT`: another socket of the same user setting it may bind the port meanwhile.
    /// A TCP socket listens unless `listens` is false (bound only: connections to it are refused
    /// while it holds the port), with `SO_REUSEADDR` (a restart binds while old connections sit
    /// in TIME_WAIT) unless `exclusive` (no other socket can bind the port meanwhile).
    package static func open(host: String, port: Int, backlog: Int, datagram: Bool = false,
                             sharesPort: Bool = false, listens: Bool = true, exclusive: Bool = false)
        throws(ServerError) -> (descriptor: Int32, address: ServerAddress) {
        let requested = ServerAddress(host: host, port: port).description
        guard (0...65535).contains(port) else { throw .bind(address: requested, reason: "port out of range 0...65535") }
        let flags = (sharesPort ? Int32(CS_SHARE_PORT) : 0) | (listens ? 0 : Int32(CS_BIND_ONLY))
            | (exclusive ? Int32(CS_EXCLUSIVE) : 0)
        let descriptor = cs_bind_socket(host, Int32(port), Int32(datagram ? CS_SOCK_DGRAM : CS_SOCK_STREAM), Int32(backlog), flags)
        guard descriptor >= 0 else { throw .bind(address: requested, reason: String(cString: cs_listen_error(descriptor))) }
        var name = [CChar](repeating: 0, count: 64)
        var bound: Int32 = 0
        _ = name.withUnsafeMutableBufferPointer { cs_local_address(descriptor, $0.baseAddress, $0.count, &bound) }
        let address = ServerAddress(host: String(cBuffer: name), port: Int(bound))
        return (descriptor, address)
    }
}
