import WPCSystem
import Glibc
import Synchronization
public import WPLogging

/// A request-response protocol over UDP served by ``DatagramServer`` (an SNMP agent): each
/// datagram is handed over on its own and may be answered with one datagram.
public protocol DatagramProtocol: Sendable {
    /// The answer to `datagram` from `peer` (`ip:port`, `[ip6]:port`), or `nil` to send
    /// nothing. Runs on Swift's pool; other datagrams are received and handled meanwhile.
    func handle(_ datagram: [UInt8], from peer: String) async -> [UInt8]?

    /// Whether ``answerInline(_:from:)`` answers instead of ``handle(_:from:)``, on the
    /// server's event-loop thread: for a protocol whose answer is short CPU work on memory it
    /// holds (no I/O, no waiting for a lock held across either), so a datagram costs no task
    /// and no thread hand-off. `false` by default.
    var answersInline: Bool { get }

    /// The answer to `datagram`, computed on the event loop (only when ``answersInline``).
    func answerInline(_ datagram: [UInt8], from peer: String) -> [UInt8]?
}

extension DatagramProtocol {
    /// `false`: by default every datagram is handled by ``handle(_:from:)`` on Swift's pool.
    public var answersInline: Bool { false }
    /// `nil`: by default nothing is answered on the event loop.
    public func answerInline(_ datagram: [UInt8], from peer: String) -> [UInt8]? { nil }
}

/// What a ``DatagramServer`` has done since it started.
public struct DatagramServerStatistics: Sendable, Equatable {
    /// Datagrams received and handed to the protocol.
    public var received = 0
    /// Answers sent.
    public var answered = 0
    /// Datagrams dropped unread: too many in flight from their sender's address, or in all.
    public var droppedBusy = 0
    /// Datagrams dropped for being longer than ``DatagramServer/Configuration/maxDatagramBytes``.
    public var droppedTooLarge = 0
    /// Answers the socket did not take (its send buffer full, or the peer unreachable).
    public var sendFailures = 0
    /// Datagrams sent on the server's own initiative (``DatagramServer/send(_:to:port:)``).
    public var sent = 0
    /// Datagrams the kernel dropped because the socket's receive buffer was full (a flood, or
    /// a burst faster than the loop reads), as it last reported (Linux's `SO_RXQ_OVFL`, told
    /// with the next datagram read; 0 where the kernel does not count).
    public var droppedByKernel = 0
    /// The socket's receive buffer in bytes as the kernel set it (0 before binding): 4 MiB is
    /// asked for, capped by the system (`net.core.rmem_max`).
    public var receiveBufferBytes = 0

    /// Creates the figures of a server that has done nothing yet.
    public init() {}
}

/// A UDP server on the same `Reactor` as ``WPHTTPServer`` and ``LineServer``: one event-loop
/// thread receives every datagram without blocking and sends every answer; the protocol
/// handles each datagram as a task on Swift's pool, or answers it on the loop when it says
/// it ``DatagramProtocol/answersInline`` (an SNMP agent's answer is a lookup in memory).
/// Hardening: a datagram longer than ``Configuration/maxDatagramBytes`` is dropped unread; at
/// most ``Configuration/maxInFlight`` datagrams are handled at once, and at most
/// ``Configuration/maxInFlightPerAddress`` from one sender address (any port) — inline, at most
/// that many of one address in a batch of what was waiting — so a flood from one address is
/// dropped while others are still served; each loop turn reads at most 64 datagrams, so timers
/// and shutdown are never starved.
public final class DatagramServer<P: DatagramProtocol>: Sendable {
    /// Where and how it listens.
    public struct Configuration: Sendable {
        /// The address or host name to bind (`0.0.0.0`, `::`).
        public var host: String
        /// The UDP port to bind.
        public var port: Int
        /// The longest datagram read; longer ones are dropped (IPv4 UDP carries 65,507 at most).
        public var maxDatagramBytes: Int
        /// Datagrams handled at once; more are dropped until one is answered.
        public var maxInFlight: Int
        /// Datagrams from one sender address handled at once.
        public var maxInFlightPerAddress: Int

        /// Creates settings for `host:port`; the limits default to 65,507-byte datagrams, 256 in
        /// flight, 16 per address.
        public init(host: String, port: Int, maxDatagramBytes: Int = 65_507, maxInFlight: Int = 256,
                    maxInFlightPerAddress: Int = 16) {
            self.host = host
            self.port = port
            self.maxDatagramBytes = maxDatagramBytes
            self.maxInFlight = maxInFlight
            self.maxInFlightPerAddress = maxInFlightPerAddress
        }
    }

    /// Where and how the server listens.
    public let configuration: Configuration
    private let datagramProtocol: P
    private let logger: WPLogger
    private let lifecycle = ListenerLifecycle()
    private let counters = DatagramCounters()
    /// The running loop, for ``send(_:to:port:)``.
    private let running = Mutex<Reactor<DatagramDriver<P>>?>(nil)

    /// Creates a server that hands datagrams to `datagramProtocol`; nothing is bound until it runs.
    public init(configuration: Configuration, protocol datagramProtocol: P, logger: WPLogger) {
        self.configuration = configuration
        self.datagramProtocol = datagramProtocol
        self.logger = logger
    }

    /// What the server has done since it started.
    public var statistics: DatagramServerStatistics { counters.value.withLock { $0 } }

    /// Binds, then serves until the task is cancelled.
    ///
    /// - Throws: ``ServerError/bind(address:reason:)`` when it cannot bind,
    ///   ``ServerError/alreadyStarted`` when run twice.
    public func run() async throws {
        defer { running.withLock { $0 = nil } }
        try await lifecycle.serve(kind: "udp", logger: logger) { [self] () throws(ServerError) in
            let (loop, address) = try bind()
            running.withLock { $0 = loop }
            return (loop, address)
        }
    }

    /// Sends `datagram` from the server's socket to `host` (an IPv4 or IPv6 address literal:
    /// nothing is resolved) and `port`, without waiting: the loop thread sends it. Notifications
    /// (SNMP traps) leave this way, from the agent's own address.
    ///
    /// - Returns: `false` when the server is not serving or `host` is not an address literal.
    @discardableResult
    public func send(_ datagram: [UInt8], to host: String, port: Int) -> Bool {
        var peer = cs_peer()
        guard cs_peer_parse(host, Int32(clamping: port), &peer) == 0, let loop = running.withLock({ $0 }) else { return false }
        loop.complete(0, DatagramAnswer(peer: peer, address: "", reply: datagram, outbound: true))
        return true
    }

    /// The bound address while serving; `nil` before and after.
    public var address: ServerAddress? { lifecycle.address }

    /// Waits until ``run()`` has bound its socket and returns the bound address (the real port
    /// when 0 was configured).
    ///
    /// - Throws: The bind error when `run()` failed to bind, ``ServerError/notListening`` when
    ///   the server already stopped, `CancellationError` when the waiting task is cancelled.
    public func waitUntilListening() async throws -> ServerAddress {
        try await lifecycle.waitUntilListening()
    }

    private func bind() throws(ServerError) -> (Reactor<DatagramDriver<P>>, ServerAddress) {
        let (descriptor, address) = try ListeningSocket.open(host: configuration.host, port: configuration.port, backlog: 0,
                                                             datagram: true)
        do {
            let buffer = Int(cs_receive_buffer(descriptor))
            counters.update { $0.receiveBufferBytes = max(0, buffer) }
            let driver = DatagramDriver(configuration: configuration, protocol: datagramProtocol, counters: counters)
            let loop = try Reactor(name: "udp", listener: descriptor, kind: .datagram, driver: driver, connectionLimit: 1, tls: nil,
                                   tlsAtAccept: false, counters: ConnectionCounters(), logger: logger)
            return (loop, address)
        } catch {
            _ = cs_close(descriptor)
            throw error
        }
    }
}

/// A ``DatagramServer``'s statistics, kept by its driver and read from any thread.
final class DatagramCounters: Sendable {
    let value = Mutex(DatagramServerStatistics())
    func update(_ change: (inout DatagramServerStatistics) -> Void) { value.withLock { change(&$0) } }
}

/// A handled datagram's answer on its way back to the loop.
struct DatagramAnswer: @unchecked Sendable {
    // `cs_peer` is plain bytes (a socket address and its length).
    var peer: cs_peer
    var address: String
    var reply: [UInt8]?
    /// Sent on the server's initiative: no datagram in flight to account for.
    var outbound = false
}

/// A datagram protocol on a ``Reactor``: reads the socket, bounds what is in flight, sends the
/// answers. Confined to the reactor's thread.
final class DatagramDriver<P: DatagramProtocol>: ConnectionDriver {
    typealias Loop = ConnectionLoop<DatagramDriver<P>>
    typealias Connection = ReactorConnection

    /// Datagrams read per readiness event: the loop gets back to timers and the inbox.
    private static var readsPerTurn: Int { 64 }

    private let configuration: DatagramServer<P>.Configuration
    private let datagramProtocol: P
    private let counters: DatagramCounters
    private var inFlight = 0
    private var inFlightByAddress: [String: Int] = [:]
    /// The kernel's drop count as last reported.
    private var lastKernelDrops: UInt32 = 0

    init(configuration: DatagramServer<P>.Configuration, protocol datagramProtocol: P,
         counters: DatagramCounters) {
        self.configuration = configuration
        self.datagramProtocol = datagramProtocol
        self.counters = counters
    }

    var timeouts: [Duration] { [.seconds(1)] }
    var shutdownGracePeriod: Duration { .zero }

    func listenerReadable(in loop: some Loop) {
        let capacity = min(loop.scratch.count, configuration.maxDatagramBytes)
        let buffer = UnsafeMutableRawBufferPointer(rebasing: loop.scratch[0..<capacity])
        let inline = datagramProtocol.answersInline
        // Inline: what was waiting is read first, then answered: at most `maxInFlightPerAddress`
        // of one batch from one address (a client waiting for each answer has one at most).
        var batch: [(datagram: [UInt8], peer: cs_peer, remote: String)] = []
        var batchByAddress: [String: Int] = [:]
        // The kernel's cumulative drop count (32 bits, wrapping) as the last datagram told it.
        var kernelDrops: Int64 = -1
        for _ in 0..<Self.readsPerTurn {
            guard let received = loop.receiveDatagram(into: buffer) else { break }
            if received.kernelDrops >= 0 { kernelDrops = received.kernelDrops }
            guard received.length <= capacity else {
                counters.update { $0.droppedTooLarge += 1 }
                continue
            }
            let remote = received.remote, peer = received.peer
            let address = PeerAddress.host(of: remote)
            let datagram = Array(UnsafeRawBufferPointer(rebasing: buffer[0..<received.length]))
            if inline {
                guard batchByAddress[address, default: 0] < configuration.maxInFlightPerAddress else {
                    counters.update { $0.droppedBusy += 1 }
                    continue
                }
                batchByAddress[address, default: 0] += 1
                counters.update { $0.received += 1 }
                batch.append((datagram, peer, remote))
                continue
            }
            guard inFlight < configuration.maxInFlight,
                  inFlightByAddress[address, default: 0] < configuration.maxInFlightPerAddress else {
                counters.update { $0.droppedBusy += 1 }
                continue
            }
            inFlight += 1
            inFlightByAddress[address, default: 0] += 1
            counters.update { $0.received += 1 }
            let datagramProtocol = self.datagramProtocol
            let answer = DatagramAnswer(peer: peer, address: address, reply: nil)
            Task {
                var answer = answer
                answer.reply = await datagramProtocol.handle(datagram, from: remote)
                loop.complete(0, answer)
            }
        }
        // Counted before anything of this batch is answered: a client that has its answer finds
        // the drops the kernel told with its datagram in the statistics already.
        if kernelDrops >= 0 { noteKernelDrops(UInt32(truncatingIfNeeded: kernelDrops)) }
        for item in batch {
            if let reply = datagramProtocol.answerInline(item.datagram, from: item.remote) { send(reply, to: item.peer, in: loop) }
        }
    }

    /// The kernel's count wraps at 2³²: the statistic keeps growing across the wrap.
    private func noteKernelDrops(_ reported: UInt32) {
        let increase = Int(reported &- lastKernelDrops)
        lastKernelDrops = reported
        if increase > 0 { counters.update { $0.droppedByKernel += increase } }
    }

    func deliver(_ completion: DatagramAnswer, to connection: ReactorConnection?, in loop: some Loop) {
        if completion.outbound {
            guard let datagram = completion.reply,
                  let sent = datagram.withUnsafeBytes({ loop.sendDatagram($0, to: completion.peer) }) else { return }
            counters.update { statistics in
                if sent == datagram.count { statistics.sent += 1 } else { statistics.sendFailures += 1 }
            }
            return
        }
        inFlight -= 1
        if let count = inFlightByAddress[completion.address], count > 1 {
            inFlightByAddress[completion.address] = count - 1
        } else {
            inFlightByAddress.removeValue(forKey: completion.address)
        }
        guard let reply = completion.reply else { return }
        send(reply, to: completion.peer, in: loop)
    }

    /// Sends an answer to `peer` from the listening socket, counted.
    private func send(_ reply: [UInt8], to peer: cs_peer, in loop: some Loop) {
        guard let sent = reply.withUnsafeBytes({ loop.sendDatagram($0, to: peer) }) else { return }
        counters.update { statistics in
            if sent == reply.count { statistics.answered += 1 } else { statistics.sendFailures += 1 }
        }
    }

    // A datagram socket has no connections.
    func makeConnection(id: UInt64, io: any ConnectionIO, remoteAddress: String, now: Int64) -> ReactorConnection {
        ReactorConnection(id: id, io: io, remoteAddress: remoteAddress, acceptedAt: now)
    }
    func drive(_ connection: ReactorConnection, in loop: some Loop) {}
    func isHandling(_ connection: ReactorConnection) -> Bool { false }
    func complete(_ connection: ReactorConnection, _ completion: DatagramAnswer, in loop: some Loop) {}
    func dropped(_ completion: DatagramAnswer) {}
    func evictionRank(_ connection: ReactorConnection) -> EvictionRank? { nil }
    func deadlinePassed(_ connection: ReactorConnection, now: Int64, in loop: some Loop) {}
    func drain(_ connection: ReactorConnection, in loop: some Loop) {}
    func closed(_ connection: ReactorConnection, in loop: some Loop) {}
}
