import WPCSystem
import Glibc
import Synchronization
import WPRuntime
public import WPLogging

/// A line-based protocol served by ``LineServer``: one session value per connection, handed
/// each complete line in order.
public protocol LineProtocol: Sendable {
    /// A connection's state (credentials, login); moved into the task handling a line and back.
    associatedtype Session: Sendable

    /// A new connection from `remote` (`ip:port`).
    func open(remote: String) -> Session
    /// The reply to `line` (without its line ending). Runs on Swift's pool, one line of a
    /// connection at a time; other connections are served meanwhile.
    func handle(_ line: [UInt8], session: inout Session) async -> LineReply
    /// Whether the connection is worth keeping when the server is full (a logged-in monitor):
    /// the server closes unprotected connections first to make room.
    func isProtected(_ session: Session) -> Bool
    /// Whether the connection had a useful command answered (not a greeting, a version or an
    /// error): when the server is full, connections that had none make room first, whatever
    /// they sent, so a flood mimicking a client's first lines competes only with its own.
    func isEstablished(_ session: Session) -> Bool
    /// The connection is gone (closed by either side, timed out, evicted, server stopped).
    func close(_ session: Session)
    /// What a line longer than the limit gets before the connection is closed.
    var tooLongReply: [UInt8] { get }
}

/// The answer to one line.
public struct LineReply: Sendable, Equatable {
    /// What happens once the reply is written.
    public enum Then: Sendable, Equatable {
        /// Keep the connection open and read the next line.
        case `continue`
        /// Close the connection.
        case close
        /// Start TLS on the connection (the listener's certificate): the next bytes are a TLS
        /// handshake.
        case startTLS
    }

    /// The bytes written back, line endings included.
    public var bytes: [UInt8]
    /// What happens once they are written.
    public var then: Then

    /// Creates a reply of `bytes`; by default the connection stays open.
    public init(_ bytes: [UInt8], then: Then = .continue) {
        self.bytes = bytes
        self.then = then
    }
}

/// What a ``LineServer`` has done since it started.
public struct LineServerStatistics: Sendable, Equatable {
    /// Connections open now.
    public var open = 0
    /// Connections accepted since the start.
    public var accepted = 0
    /// Refused at the cap (every open connection protected).
    public var refused = 0
    /// Closed to make room at the cap.
    public var evicted = 0
    /// Closed for a line over the limit, a line not finished in time, idleness or a reply not
    /// taken in time.
    public var timedOutOrTooLong = 0
    /// Lines handled.
    public var lines = 0

    /// No connections, no lines (a fake listener's figures).
    public init() {}
}

/// Lines handled by a server, counted on its loop and read from any thread.
final class LineCount: Sendable {
    private let value = Atomic<Int>(0)
    var current: Int { value.load(ordering: .relaxed) }
    func increment() { value.add(1, ordering: .relaxed) }
}

extension LineServerStatistics {
    init(_ connections: ConnectionStatistics, lines: Int) {
        self.init()
        open = connections.open
        accepted = connections.accepted
        refused = connections.refused
        evicted = connections.evicted
        timedOutOrTooLong = connections.closedByLimits
        self.lines = lines
    }
}

/// A TCP server for line-based protocols (the NUT network protocol): one event-loop thread of
/// its own (a `Reactor`) doing every read and write without blocking, each connection's lines handled in
/// order by tasks on Swift's pool, with the HTTP server's hardening: a connection cap (see
/// ``Configuration/maxConnections`` for who makes room), a line length limit, a deadline for a line once
/// it started, an idle timeout, a write timeout, and no lock held across I/O.
public final class LineServer<P: LineProtocol>: Sendable {
    /// Where and how it listens.
    public struct Configuration: Sendable {
        /// The address or host name to bind (`0.0.0.0`, `::`).
        public var host: String
        /// The TCP port; `0` picks a free one.
        public var port: Int
        /// Connections at once. A new one beyond closes, never a protected connection (logged
        /// in) nor one whose line is being handled: first one not established
        /// (``LineProtocol/isEstablished(_:)``: whatever it sent, a byte, part of a line, a
        /// greeting), the one accepted first, once its ``evictionGrace`` is over; then the
        /// established one whose last complete line is oldest. While the one to go is in its
        /// grace the newcomer waits in the listen backlog; when all are protected it is refused.
        public var maxConnections: Int
        /// How long a connection that is not established is kept at the cap after its accept:
        /// a new client's first round trips, which a flood could otherwise cut short by
        /// connecting faster than the client talks.
        public var evictionGrace: Duration = .seconds(2)
        /// The longest line, line ending excluded.
        public var maxLineLength: Int
        /// A line must be complete this long after its first byte arrived (slow senders).
        public var lineTimeout: Duration
        /// A connection that sends no line this long is closed.
        public var idleTimeout: Duration
        /// A reply must be taken by the peer within this.
        public var writeTimeout: Duration
        /// The certificate for `STARTTLS`; `nil` when it is not offered.
        public var tls: WPTLSConfiguration?
        /// Listen backlog: connections the kernel completes before they are accepted. A short
        /// one drops new clients' SYNs while a flood reconnects (they retry after 1 s, then 2 s).
        public var backlog: Int = 1024

        /// Creates settings for `host:port`; the limits take their defaults (256 connections,
        /// 1,024-byte lines, 10 s per line, 300 s idle, 10 s per reply).
        public init(host: String, port: Int, maxConnections: Int = 256, maxLineLength: Int = 1024,
                    lineTimeout: Duration = .seconds(10), idleTimeout: Duration = .seconds(300),
                    writeTimeout: Duration = .seconds(10), tls: WPTLSConfiguration? = nil) {
            self.host = host
            self.port = port
            self.maxConnections = maxConnections
            self.maxLineLength = maxLineLength
            self.lineTimeout = lineTimeout
            self.idleTimeout = idleTimeout
            self.writeTimeout = writeTimeout
            self.tls = tls
        }
    }

    /// Where and how the server listens.
    public let configuration: Configuration
    private let lineProtocol: P
    private let logger: WPLogger
    private let lifecycle = ListenerLifecycle()
    private let counters = ConnectionCounters()
    private let lines = LineCount()

    /// Creates a server that hands lines to `lineProtocol`; nothing is bound until it runs.
    public init(configuration: Configuration, protocol lineProtocol: P, logger: WPLogger) {
        self.configuration = configuration
        self.lineProtocol = lineProtocol
        self.logger = logger
    }

    /// What the server has done since it started.
    public var statistics: LineServerStatistics {
        LineServerStatistics(counters.current, lines: lines.current)
    }

    /// What the server's connections have done, as ``WPHTTPServer/statistics`` reports it.
    public var connectionStatistics: ConnectionStatistics { counters.current }

    /// Binds, then serves until the task is cancelled; then closes every connection.
    ///
    /// - Throws: ``ServerError/bind(address:reason:)`` when it cannot listen,
    ///   ``ServerError/alreadyStarted`` when run twice.
    public func run() async throws {
        try await lifecycle.serve(kind: "line", logger: logger) { [self] () throws(ServerError) in try bind() }
    }

    /// The bound address while listening; `nil` before and after.
    public var address: ServerAddress? { lifecycle.address }

    /// Waits until ``run()`` has bound its socket and returns the bound address (the real port
    /// when 0 was configured).
    ///
    /// - Throws: The bind error when `run()` failed to bind, ``ServerError/notListening`` when
    ///   the server already stopped, `CancellationError` when the waiting task is cancelled.
    public func waitUntilListening() async throws -> ServerAddress {
        try await lifecycle.waitUntilListening()
    }

    private func bind() throws(ServerError) -> (Reactor<LineConnectionDriver<P>>, ServerAddress) {
        let tls = try TLSContextStore.make(configuration.tls, logger: logger)
        let (descriptor, address) = try ListeningSocket.open(host: configuration.host, port: configuration.port,
                                                             backlog: configuration.backlog)
        do {
            let driver = LineConnectionDriver(configuration: configuration, protocol: lineProtocol, lines: lines)
            let loop = try Reactor(name: "line", listener: descriptor, driver: driver, connectionLimit: configuration.maxConnections,
                                   tls: tls, tlsAtAccept: false, counters: counters, logger: logger)
            return (loop, address)
        } catch {
            _ = cs_close(descriptor)
            throw error
        }
    }
}

/// A line protocol on a ``Reactor``: lines read and handed to the ``LineProtocol`` one at a
/// time per connection, replies written, deadlines kept. Confined to the reactor's thread.
final class LineConnectionDriver<P: LineProtocol>: ConnectionDriver {
    typealias Configuration = LineServer<P>.Configuration
    typealias Loop = ConnectionLoop<LineConnectionDriver<P>>

    final class Connection: ReactorConnection {
        /// When the last complete line arrived (``ReactorConnection/acceptedAt`` before the
        /// first): who is evicted first.
        var lastLineAt: Int64
        /// Moved out while a line is handled.
        var session: P.Session?
        var input: [UInt8] = []
        var output: [UInt8] = [] { didSet { rearm() } }
        var written = 0
        var then = LineReply.Then.continue
        var handling = false { didSet { rearm() } }
        /// When the current partial line must be complete; 0 when no partial line.
        var lineDeadline: Int64 = 0 { didSet { rearm() } }
        var idleDeadline: Int64 { didSet { rearm() } }
        /// When the reply being written must be taken; 0 when none.
        var writeDeadline: Int64 = 0 { didSet { rearm() } }

        init(id: UInt64, io: any ConnectionIO, remoteAddress: String, session: P.Session, now: Int64,
             idleDeadline: Int64) {
            self.lastLineAt = now
            self.session = session
            self.idleDeadline = idleDeadline
            super.init(id: id, io: io, remoteAddress: remoteAddress, acceptedAt: now)
            rearm()
        }

        /// The reactor's deadline: the earliest of the write deadline, and (unless a line is
        /// being handled) the partial line's and (unless a reply is pending) the idle one.
        private func rearm() {
            var earliest = Int64.max
            if writeDeadline != 0 { earliest = writeDeadline }
            if !handling {
                if lineDeadline != 0 { earliest = min(earliest, lineDeadline) }
                if output.isEmpty { earliest = min(earliest, idleDeadline) }
            }
            deadline = earliest == .max ? 0 : earliest
        }
    }

    /// Bytes read at once: a little more than a line, so a peer pipelining lines is read a
    /// line or so at a time.
    private static var readSize: Int { 4096 }

    private let configuration: Configuration
    private let lineProtocol: P
    /// Lines handled, read by ``LineServer/statistics``.
    private let lines: LineCount

    init(configuration: Configuration, protocol lineProtocol: P, lines: LineCount) {
        self.configuration = configuration
        self.lineProtocol = lineProtocol
        self.lines = lines
    }

    // MARK: ConnectionDriver

    var timeouts: [Duration] { [configuration.lineTimeout, configuration.idleTimeout, configuration.writeTimeout] }

    /// A line server closes every connection at once on shutdown.
    var shutdownGracePeriod: Duration { .zero }

    func makeConnection(id: UInt64, io: any ConnectionIO, remoteAddress: String, now: Int64) -> Connection {
        Connection(id: id, io: io, remoteAddress: remoteAddress, session: lineProtocol.open(remote: remoteAddress), now: now,
                   idleDeadline: now.adding(configuration.idleTimeout))
    }

    func isHandling(_ connection: Connection) -> Bool { connection.handling }

    func complete(_ connection: Connection, _ completion: (LineReply, P.Session), in loop: some Loop) {
        connection.session = completion.1
        connection.handling = false
        startWrite(connection, completion.0, in: loop)
    }

    func dropped(_ completion: (LineReply, P.Session)) {
        lineProtocol.close(completion.1)
    }

    /// At the cap, what makes room first: a connection not established (whatever it sent: no
    /// byte, a byte, part of a line, greetings or errors), the one accepted first, once its
    /// grace is over; then an established one, the one whose last complete line is oldest; never
    /// a protected one (a logged-in monitor) nor one whose line is being handled. What a flood
    /// sends short of a useful command makes it no harder to evict than a client that has not
    /// yet sent its first line, and a newcomer is the youngest: it outlives the flood's older
    /// connections and, within its grace, the whole flood.
    func evictionRank(_ connection: Connection) -> EvictionRank? {
        guard let session = connection.session, !lineProtocol.isProtected(session) else { return nil }
        if lineProtocol.isEstablished(session) { return EvictionRank(activity: 1, since: connection.lastLineAt) }
        return EvictionRank(activity: 0, since: connection.acceptedAt,
                            notBefore: connection.acceptedAt.adding(configuration.evictionGrace))
    }

    /// A line is answered soon: a newcomer waits for it rather than being closed.
    var newcomersWaitForHandlers: Bool { true }

    func deadlinePassed(_ connection: Connection, now: Int64, in loop: some Loop) {
        loop.counters.update { $0.closedByLimits += 1 }
        loop.close(connection)
    }

    func drain(_ connection: Connection, in loop: some Loop) {
        loop.close(connection)
    }

    /// The session and the counters first: once the peer sees the connection end, both already
    /// say so. A line being handled returns its session through the inbox; closed there.
    func closed(_ connection: Connection, in loop: some Loop) {
        if let session = connection.session { lineProtocol.close(session) }
        connection.session = nil
    }

    // MARK: Lines

    /// Writes what is pending, then handles a buffered line or reads more.
    func drive(_ connection: Connection, in loop: some Loop) {
        guard loop.isOpen(connection) else { return }
        if connection.written < connection.output.count {
            flush(connection, in: loop)
            return
        }
        guard !connection.handling else { return }
        if dispatchBufferedLine(connection, in: loop) { return }
        guard connection.readable else { return }
        let buffer = UnsafeMutableRawBufferPointer(rebasing: loop.scratch[0..<min(Self.readSize, loop.scratch.count)])
        while let count = loop.read(connection, into: buffer) {
            if connection.input.isEmpty { connection.lineDeadline = loop.now.adding(configuration.lineTimeout) }
            connection.input.append(contentsOf: UnsafeRawBufferPointer(rebasing: buffer[0..<count]))
            if dispatchBufferedLine(connection, in: loop) { return }
            if connection.input.count > configuration.maxLineLength {
                refuse(connection, lineProtocol.tooLongReply, in: loop)
                return
            }
        }
    }

    /// Hands the first complete buffered line to the protocol; `false` when there is none.
    private func dispatchBufferedLine(_ connection: Connection, in loop: some Loop) -> Bool {
        guard let newline = connection.input.firstIndex(of: 0x0A) else { return false }
        guard newline <= configuration.maxLineLength + 1 else {
            refuse(connection, lineProtocol.tooLongReply, in: loop)
            return true
        }
        var line = Array(connection.input[..<newline])
        if line.last == 0x0D { line.removeLast() }
        connection.input.removeSubrange(...newline)
        let now = loop.now
        connection.lineDeadline = connection.input.isEmpty ? 0 : now.adding(configuration.lineTimeout)
        connection.idleDeadline = now.adding(configuration.idleTimeout)
        connection.lastLineAt = now
        guard var session = connection.session else { return false }
        connection.session = nil
        connection.handling = true
        lines.increment()
        let lineProtocol = self.lineProtocol
        let id = connection.id
        connection.task = Task {
            let reply = await lineProtocol.handle(line, session: &session)
            loop.complete(id, (reply, session))
        }
        return true
    }

    private func startWrite(_ connection: Connection, _ reply: LineReply, in loop: some Loop) {
        connection.output = reply.bytes
        connection.written = 0
        connection.then = reply.then
        connection.writeDeadline = loop.now.adding(configuration.writeTimeout)
        flush(connection, in: loop)
    }

    private func flush(_ connection: Connection, in loop: some Loop) {
        while connection.written < connection.output.count {
            guard connection.writable else { return }
            let result = connection.output.withUnsafeBytes { bytes -> IOResult in
                let rest = UnsafeRawBufferPointer(rebasing: bytes[connection.written...])
                return withUnsafeTemporaryAllocation(of: UnsafeRawBufferPointer.self, capacity: 1) { buffers in
                    buffers[0] = rest
                    return connection.io.write(UnsafeBufferPointer(buffers))
                }
            }
            switch result {
            case .bytes(let count): connection.written += count
            case .wouldBlock:
                connection.writable = false
                return
            case .endOfStream, .failed:
                loop.close(connection)
                return
            }
        }
        connection.output = []
        connection.written = 0
        connection.writeDeadline = 0
        switch connection.then {
        case .close:
            loop.close(connection)
            return
        case .startTLS:
            connection.then = .continue
            guard loop.startTLS(connection) else {
                loop.close(connection)
                return
            }
            // Nothing sent in plain text after the STARTTLS line counts as input once encrypted.
            connection.input = []
            connection.lineDeadline = 0
        case .continue:
            break
        }
        if connection.peerClosed && connection.input.firstIndex(of: 0x0A) == nil {
            loop.close(connection)
            return
        }
        drive(connection, in: loop)
    }

    /// Writes `reply` (best effort) and closes the connection.
    private func refuse(_ connection: Connection, _ reply: [UInt8], in loop: some Loop) {
        loop.counters.update { $0.closedByLimits += 1 }
        connection.input = []
        if !reply.isEmpty { startWrite(connection, LineReply(reply, then: .close), in: loop) } else { loop.close(connection) }
    }
}
