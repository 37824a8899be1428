import WPRuntime
import Glibc
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
    ///   - host: a numeric IPv4 or IPv6 address (`127.0.0.1`, `::1`); `localhost` means `127.0.0.1`.
    ///   - port: the port, 0 for any free one.
    ///   - mode: refuse connections, or accept them silently.
    ///   - reusingAddress: sets `SO_REUSEADDR`, so a port whose listener just closed (its
    ///     connections in `TIME_WAIT`) can be held at once, and a listener setting it too can
    ///     bind and listen on the port while it is held (`.refusing` only). Ports picked for
    ///     port 0 and for outgoing connections still never land on it: the kernel skips ports
    ///     bound this way.
    ///   - sharingPort: sets `SO_REUSEPORT`, so the port can be held while a listener that set
    ///     it too (`WPHTTPServer.Configuration.sharesPort`) still listens on it.
    /// - Throws: ``SimulatorFleetError/socket(_:)`` naming the failed call.
    public init(host: String = "127.0.0.1", port: Int = 0, mode: Mode, reusingAddress: Bool = false,
                sharingPort: Bool = false) throws {
        var hints = addrinfo()
        hints.ai_flags = AI_NUMERICHOST | AI_NUMERICSERV
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var found: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(host == "localhost" ? "127.0.0.1" : host, String(port), &hints, &found) == 0,
              let info = found?.pointee else {
            throw SimulatorFleetError.socket("\(host) is not a numeric address")
        }
        defer { freeaddrinfo(found) }
        let fd = socket(info.ai_family, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw SimulatorFleetError.socket("socket: \(systemErrorText(errno))") }
        if reusingAddress {
            var one: Int32 = 1
            _ = setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
        }
        if sharingPort {
            var one: Int32 = 1
            _ = setsockopt(fd, SOL_SOCKET, SO_REUSEPORT, &one, socklen_t(MemoryLayout<Int32>.size))
        }
        guard bind(fd, info.ai_addr, info.ai_addrlen) == 0, mode == .refusing || listen(fd, 16) == 0 else {
            let reason = systemErrorText(errno)
            _ = Glibc.close(fd)
            throw SimulatorFleetError.socket("bind/listen \(host):\(port): \(reason)")
        }
        var actual = sockaddr_storage()
        var actualLength = socklen_t(MemoryLayout<sockaddr_storage>.size)
        _ = withUnsafeMutablePointer(to: &actual) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &actualLength) }
        }
        let networkPort: UInt16 = withUnsafeBytes(of: actual) { bytes in
            // sin_port and sin6_port both sit right after the 2-byte family.
            bytes.load(fromByteOffset: 2, as: UInt16.self)
        }
        self.port = Int(UInt16(bigEndian: networkPort))
        self.descriptor = Mutex(fd)
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
