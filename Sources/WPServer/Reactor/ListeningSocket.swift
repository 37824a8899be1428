import WPPOSIX
import WPRuntime
import WPCSystem

/// Opening a socket that takes a port: the one socket set-up of ``WPHTTPServer``, ``LineServer``,
/// ``DatagramServer`` and the simulator's reserved ports.
package enum ListeningSocket {
    /// How a TCP socket holds its port.
    package enum Holding: Sendable {
        /// Listening, with `SO_REUSEADDR` (a restart binds while old connections sit in TIME_WAIT).
        case listening
        /// Listening without `SO_REUSEADDR`: no other socket can bind the port meanwhile.
        case listeningExclusively
        /// Bound without listening: connections to it are refused while it holds the port; with
        /// `exclusive`, without `SO_REUSEADDR`.
        case boundOnly(exclusive: Bool)
    }

    /// Binds and listens on `host:port` (port 0: any free port).
    ///
    /// - Returns: the descriptor and the address it is bound to (the port chosen for 0).
    /// - Throws: ``ServerError/bind(address:reason:)`` naming the address asked for.
    /// With `datagram`, a UDP socket bound to `host:port` (no backlog). With `sharesPort`,
    /// `SO_REUSEPORT`: another socket of the same user setting it may bind the port meanwhile.
    /// `holding` says how a TCP socket holds its port (listening by default).
    package static func open(host: String, port: Int, backlog: Int, datagram: Bool = false,
                             sharesPort: Bool = false, holding: Holding = .listening)
        throws(ServerError) -> (descriptor: Int32, address: ServerAddress) {
        let requested = ServerAddress(host: host, port: port).description
        guard (0...65535).contains(port) else { throw .bind(address: requested, reason: "port out of range 0...65535") }
        var flags = sharesPort ? Int32(CS_SHARE_PORT) : 0
        switch holding {
        case .listening: break
        case .listeningExclusively: flags |= Int32(CS_EXCLUSIVE)
        case .boundOnly(let exclusive): flags |= Int32(CS_BIND_ONLY) | (exclusive ? Int32(CS_EXCLUSIVE) : 0)
        }
        let descriptor = cs_bind_socket(host, Int32(port), Int32(datagram ? CS_SOCK_DGRAM : CS_SOCK_STREAM), Int32(backlog), flags)
        guard descriptor >= 0 else { throw .bind(address: requested, reason: String(cString: cs_listen_error(descriptor))) }
        var name = [CChar](repeating: 0, count: 64)
        var bound: Int32 = 0
        _ = name.withUnsafeMutableBufferPointer { cs_local_address(descriptor, $0.baseAddress, $0.count, &bound) }
        let address = ServerAddress(host: String(cBuffer: name), port: Int(bound))
        return (descriptor, address)
    }
}
