import Glibc
import WPServer
import Synchronization

/// A TCP port this process holds without serving it: how a ``SimulatorFleet`` makes a server
/// that is down or hangs, deterministically and on loopback only.
///
/// - ``Mode/refusing``: the socket is bound but never listens. The kernel answers every
///   connection attempt with a reset (`ECONNREFUSED`), and since the port stays bound (without
///   `SO_REUSEADDR`) nothing else can take it, not even an ephemeral client port, until
///   ``close()``.
/// - ``Mode/silent``: the socket listens but never accepts. Connections complete in the kernel
///   (up to the backlog), requests are received and never answered; later connection attempts
///   wait unanswered.
public final class ReservedPort: Sendable {
    /// How the port behaves.
    public enum Mode: Sendable {
        /// Connections are refused.
        case refusing
        /// Connections are accepted by the kernel and never answered.
        case silent
    }

    /// The bound port.
    public let port: Int
    private let descriptor: Mutex<Int32>

    /// Binds `host:port` (`port` 0 picks a free one).
    ///
    /// - Parameters:
    ///   - host: an IPv4 or IPv6 address (`127.0.0.1`, `::1`); `localhost` means `127.0.0.1`.
    ///   - port: the port, 0 for any free one.
    ///   - mode: refuse connections, or accept them silently.
    ///   - reusingAddress: sets `SO_REUSEADDR`, so a port whose listener just closed (its
    ///     connections in `TIME_WAIT`) can be held at once, and a listener setting it too can
    ///     bind and listen on the port while it is held (`.refusing` only). Ports picked for
    ///     port 0 and for outgoing connections still never land on it: the kernel skips ports
    ///     bound this way.
    ///   - sharingPort: sets `SO_REUSEPORT`, so the port can be held while a listener that set
    ///     it too (`WPHTTPServer.Configuration.sharesPort`) still listens on it.
    /// - Throws: ``SimulatorFleetError/socket(_:)`` naming the address and why it cannot be bound.
    public init(host: String = "127.0.0.1", port: Int = 0, mode: Mode, reusingAddress: Bool = false,
                sharingPort: Bool = false) throws {
        do {
            let (fd, address) = try ListeningSocket.open(host: host == "localhost" ? "127.0.0.1" : host, port: port, backlog: 16,
                                                         sharesPort: sharingPort, listens: mode == .silent,
                                                         exclusive: !reusingAddress)
            self.port = address.port
            self.descriptor = Mutex(fd)
        } catch {
            throw SimulatorFleetError.socket(error.description)
        }
    }

    /// Releases the port. Idempotent.
    public func close() {
        descriptor.withLock { fd in
            guard fd >= 0 else { return }
            _ = Glibc.close(fd)
            fd = -1
        }
    }

    deinit { close() }
}

/// Why a ``SimulatorFleet`` could not start.
public enum SimulatorFleetError: Error, Sendable, Equatable, CustomStringConvertible {
    /// A socket call failed.
    case socket(String)
    /// A `--fault-server` entry that is not `INDEX=FAULT` with a known fault.
    case unknownFault(String)

    /// `simulator fleet: …`, or the bad `--fault-server` entry with the faults it may name.
    public var description: String {
        switch self {
        case .socket(let reason): "simulator fleet: \(reason)"
        case .unknownFault(let name):
            "bad server fault '\(name)'; expected INDEX=FAULT, e.g. 1=down, with FAULT one of "
                + SimulatorFleet.Fault.allCases.map(\.rawValue).joined(separator: ", ")
        }
    }
}
