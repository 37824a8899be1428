import WPCSystem
import Glibc
import Synchronization
import WPRuntime
import WPLogging

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
    /// The connection is gone (closed by either side, timed out, evicted, server stopped).
    func close(_ session: Session)
    /// What a line longer than the limit gets before the connection is closed.
    var tooLongReply: [UInt8] { get }
}

/// The answer to one line.
public struct LineReply: Sendable, Equatable {
    /// What happens once the reply is written.
    public enum Then: Sendable, Equatable {
        case `continue`
        /// Close the connection.
        case close
        /// Start TLS on the connection (the listener's certificate): the next bytes are a TLS
        /// handshake.
        case startTLS
    }

    public var bytes: [UInt8]
    public var then: Then

    public init(_ bytes: [UInt8], then: Then = .continue) {
        self.bytes = bytes
        self.then = then
    }
}

/// What a ``LineServer`` has done since it started.
public struct LineServerStatistics: Sendable, Equatable {
    /// Connections open now.
    public var open = 0
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
}

/// The statistics, shared by the server and its loop.
final class LineCounters: Sendable {
    let value = Mutex(LineServerStatistics())
    func update(_ change: (inout LineServerStatistics) -> Void) { value.withLock { change(&$0) } }
}

/// A TCP server for line-based protocols (the NUT network protocol): one event-loop thread of
/// its own doing every read and write without blocking, each connection's lines handled in
/// order by tasks on Swift's pool, with the HTTP server's hardening: a connection cap (the
/// unprotected connection whose last complete line is oldest makes room), a line length limit, a deadline for a line once
/// it started, an idle timeout, a write timeout, and no lock held across I/O.
public final class LineServer<P: LineProtocol>: Sendable {
    /// Where and how it listens.
    public struct Configuration: Sendable {
        public var host: String
        public var port: Int
        /// Connections at once; a new one beyond closes the unprotected one whose last complete
        /// line is oldest, counting from its accept when it sent none (or is refused when all
        /// are protected).
        public var maxConnections: Int
        /// The longest line, line ending excluded.
        public var maxLineLength: Int
        /// A line must be complete this long after its first byte arrived (slow senders).
        public var lineTimeout: Duration
        /// A connection that sends no line this long is closed.
        public var idleTimeout: Duration
        /// A reply must be taken by the peer within this.
        public var writeTimeout: Duration
        /// The certificate for `STARTTLS`; `nil` when it is not offered.
        public var tls: TLSConfiguration?

        public init(host: String, port: Int, maxConnections: Int = 256, maxLineLength: Int = 1024,
                    lineTimeout: Duration = .seconds(10), idleTimeout: Duration = .seconds(300),
                    writeTimeout: Duration = .seconds(10), tls: TLSConfiguration? = nil) {
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

    public let configuration: Configuration
    private let lineProtocol: P
    private let logger: Logger
    private let lifecycle = ListenerLifecycle()
    private let counters = LineCounters()

    public init(configuration: Configuration, protocol lineProtocol: P, logger: Logger) {
        self.configuration = configuration
        self.lineProtocol = lineProtocol
        self.logger = logger
    }

    /// What the server has done since it started.
    public var statistics: LineServerStatistics { counters.value.withLock { $0 } }

    /// Binds, then serves until the task is cancelled; then closes every connection.
    ///
    /// - Throws: ``ServerError/bind(address:reason:)`` when it cannot listen,
    ///   ``ServerError/alreadyStarted`` when run twice.
    public func run() async throws {
        try await lifecycle.serve(kind: "line", logger: logger) { () throws(ServerError) in try bind() }
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

    private func bind() throws(ServerError) -> (LineLoop<P>, ServerAddress) {
        let tls = try TLSContextStore.make(configuration.tls, logger: logger)
        let (descriptor, address) = try ListeningSocket.open(host: configuration.host, port: configuration.port, backlog: 128)
        do {
            let loop = try LineLoop<P>(listener: descriptor, configuration: configuration, protocol: lineProtocol, tls: tls,
                                       logger: logger, counters: counters)
            return (loop, address)
        } catch {
            _ = cs_close(descriptor)
            throw error
        }
    }
}

/// The event loop of a ``LineServer``: confined to its thread except for the inbox.
final class LineLoop<P: LineProtocol>: ServerLoop, @unchecked Sendable {
    typealias Configuration = LineServer<P>.Configuration

    private final class Client {
        let id: UInt64
        var io: any ConnectionIO
        let remote: String
        let acceptedAt: Int64
        /// When the last complete line arrived (``acceptedAt`` before the first): who is evicted first.
        var lastLineAt: Int64
        /// Moved out while a line is handled.
        var session: P.Session?
        var input: [UInt8] = []
        var output: [UInt8] = []
        var written = 0
        var then = LineReply.Then.continue
        var handling = false
        var readable = true
        var writable = true
        var peerClosed = false
        /// When the current partial line must be complete; 0 when no partial line.
        var lineDeadline: Int64 = 0
        var idleDeadline: Int64
        var writeDeadline: Int64 = 0
        var task: Task<Void, Never>?

        init(id: UInt64, io: any ConnectionIO, remote: String, session: P.Session, now: Int64, idleDeadline: Int64) {
            self.id = id
            self.io = io
            self.remote = remote
            self.acceptedAt = now
            self.lastLineAt = now
            self.session = session
            self.idleDeadline = idleDeadline
        }
    }

    private struct Inbox {
        var completions: [(UInt64, LineReply, P.Session)] = []
        var shutdown = false
        var wakePending = true
        /// `false` once the loop closed its descriptors: nothing may signal them any more.
        var open = true
    }

    private static var listenerID: UInt64 { 0 }
    private static var wakeID: UInt64 { 1 }

    private let configuration: Configuration
    private let lineProtocol: P
    private let tls: TLSContextStore?
    private let logger: Logger
    private let counters: LineCounters
    private let epoll: Int32
    private let wake: Int32
    private var listener: Int32
    private var clients: [UInt64: Client] = [:]
    private var nextID: UInt64 = 2
    private let inbox = Mutex(Inbox())
    private let scratch = UnsafeMutableRawBufferPointer.allocate(byteCount: 4096, alignment: 16)

    init(listener: Int32, configuration: Configuration, protocol lineProtocol: P, tls: TLSContextStore?, logger: Logger,
         counters: LineCounters) throws(ServerError) {
        let epoll = cs_epoll_create()
        guard epoll >= 0 else { throw .system(operation: "epoll_create1", reason: String(cString: strerror(-epoll))) }
        let wake = cs_eventfd()
        guard wake >= 0 else {
            _ = cs_close(epoll)
            throw .system(operation: "eventfd", reason: String(cString: strerror(-wake)))
        }
        _ = cs_epoll_add(epoll, listener, UInt32(CS_EV_IN), Self.listenerID)
        _ = cs_epoll_add(epoll, wake, UInt32(CS_EV_IN), Self.wakeID)
        (self.epoll, self.wake, self.listener) = (epoll, wake, listener)
        self.configuration = configuration
        self.lineProtocol = lineProtocol
        self.tls = tls
        self.logger = logger
        self.counters = counters
    }

    // MARK: From other threads

    func requestShutdown() {
        inbox.withLock { inbox in
            inbox.shutdown = true
            wakeLocked(&inbox)
        }
    }

    private func complete(_ id: UInt64, _ reply: LineReply, _ session: P.Session) {
        let accepted = inbox.withLock { inbox in
            guard inbox.open else { return false }
            inbox.completions.append((id, reply, session))
            wakeLocked(&inbox)
            return true
        }
        if !accepted { lineProtocol.close(session) }
    }

    private func wakeLocked(_ inbox: inout Inbox) {
        if inbox.open && !inbox.wakePending {
            inbox.wakePending = true
            cs_eventfd_signal(wake)
        }
    }

    // MARK: The loop

    func runLoop() {
        var events = [cs_event](repeating: cs_event(), count: 64)
        var nextScan: Int64 = 0
        while true {
            let (completions, shutdown) = inbox.withLock { inbox in
                defer { inbox.completions.removeAll(keepingCapacity: true) }
                return (inbox.completions, inbox.shutdown)
            }
            if shutdown { break }
            for (id, reply, session) in completions {
                guard let client = clients[id] else {
                    lineProtocol.close(session)
                    continue
                }
                client.session = session
                client.task = nil
                client.handling = false
                startWrite(client, reply)
            }
            let now = cs_monotonic_ns()
            if now >= nextScan {
                scanDeadlines(now)
                nextScan = now + 100_000_000
            }
            let pending = inbox.withLock { inbox in
                if !inbox.completions.isEmpty || inbox.shutdown { return true }
                inbox.wakePending = false
                return false
            }
            let timeout: Int32 = pending ? 0 : clients.isEmpty ? -1 : 100
            let count = events.withUnsafeMutableBufferPointer { cs_epoll_wait(epoll, $0.baseAddress, Int32($0.count), timeout) }
            inbox.withLock { $0.wakePending = true }
            if count < 0 {
                logger.error("epoll_wait failed", ["error": .string(String(cString: strerror(-count)))])
                break
            }
            for index in 0..<Int(count) {
                let event = events[index]
                switch event.data {
                case Self.listenerID: accept()
                case Self.wakeID: cs_eventfd_drain(wake)
                default: clientEvent(event.data, event.events)
                }
            }
        }
        discard()
    }

    /// Closes everything; the loop is not run (again).
    func discard() {
        for client in Array(clients.values) { close(client) }
        if listener >= 0 { _ = cs_close(listener) }
        listener = -1
        let stranded = inbox.withLock { inbox in
            inbox.open = false
            defer { inbox.completions.removeAll() }
            return inbox.completions
        }
        _ = cs_close(wake)
        _ = cs_close(epoll)
        scratch.deallocate()
        for (_, _, session) in stranded { lineProtocol.close(session) }
    }

    private func accept() {
        var peer = [CChar](repeating: 0, count: 64)
        while listener >= 0 {
            let descriptor = peer.withUnsafeMutableBufferPointer { cs_accept(listener, $0.baseAddress, $0.count) }
            guard descriptor >= 0 else {
                if -descriptor != EAGAIN { logger.warn("accept failed", ["error": .string(String(cString: strerror(-descriptor)))]) }
                return
            }
            if clients.count >= configuration.maxConnections, !evict() {
                _ = cs_close(descriptor)
                counters.update { $0.refused += 1 }
                continue
            }
            let remote = String(decoding: peer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            let id = nextID
            nextID += 1
            let now = cs_monotonic_ns()
            let client = Client(id: id, io: SocketIO(descriptor: descriptor), remote: remote,
                                session: lineProtocol.open(remote: remote), now: now,
                                idleDeadline: now.adding(configuration.idleTimeout))
            let events = UInt32(CS_EV_IN | CS_EV_OUT | CS_EV_RDHUP) | UInt32(1) << 31 // EPOLLET
            guard cs_epoll_add(epoll, descriptor, events, id) == 0 else {
                _ = cs_close(descriptor)
                if let session = client.session { lineProtocol.close(session) }
                continue
            }
            clients[id] = client
            counters.update {
                $0.accepted += 1
                $0.open = clients.count
            }
        }
    }

    /// Closes the unprotected connection whose last complete line is oldest (one that never
    /// sent one counts from its accept), so a flood of connections that never finish a line
    /// makes room from among its own, not from clients busy logging in; `false` when every
    /// connection is protected.
    private func evict() -> Bool {
        let candidates = clients.values.filter { client in
            client.session.map { !lineProtocol.isProtected($0) } ?? false
        }
        guard let oldest = candidates.min(by: { ($0.lastLineAt, $0.acceptedAt) < ($1.lastLineAt, $1.acceptedAt) }) else {
            return false
        }
        logger.debug("connection closed to make room", ["remote": .string(oldest.remote)])
        counters.update { $0.evicted += 1 }
        close(oldest)
        return true
    }

    private func clientEvent(_ id: UInt64, _ events: UInt32) {
        guard let client = clients[id] else { return }
        if events & UInt32(CS_EV_IN | CS_EV_RDHUP | CS_EV_HUP | CS_EV_ERR) != 0 { client.readable = true }
        if events & UInt32(CS_EV_RDHUP | CS_EV_HUP | CS_EV_ERR) != 0 { client.peerClosed = true }
        if events & UInt32(CS_EV_OUT | CS_EV_HUP | CS_EV_ERR) != 0 { client.writable = true }
        if events & UInt32(CS_EV_OUT) != 0, client.io.readWaitsForWritable { client.readable = true }
        if events & UInt32(CS_EV_IN) != 0, client.io.writeWaitsForReadable { client.writable = true }
        drive(client)
    }

    /// Writes what is pending, then handles a buffered line or reads more.
    private func drive(_ client: Client) {
        guard clients[client.id] != nil else { return }
        if client.written < client.output.count {
            flush(client)
            return
        }
        guard !client.handling else { return }
        if dispatchBufferedLine(client) { return }
        guard client.readable else { return }
        while true {
            switch client.io.read(into: scratch) {
            case .bytes(let count):
                if client.input.isEmpty { client.lineDeadline = cs_monotonic_ns().adding(configuration.lineTimeout) }
                client.input.append(contentsOf: UnsafeRawBufferPointer(rebasing: scratch[0..<count]))
                if dispatchBufferedLine(client) { return }
                if client.input.count > configuration.maxLineLength {
                    refuse(client, lineProtocol.tooLongReply)
                    return
                }
            case .wouldBlock:
                client.readable = false
                return
            case .endOfStream, .failed:
                close(client)
                return
            }
        }
    }

    /// Hands the first complete buffered line to the protocol; `false` when there is none.
    private func dispatchBufferedLine(_ client: Client) -> Bool {
        guard let newline = client.input.firstIndex(of: 0x0A) else { return false }
        guard newline <= configuration.maxLineLength + 1 else {
            refuse(client, lineProtocol.tooLongReply)
            return true
        }
        var line = Array(client.input[..<newline])
        if line.last == 0x0D { line.removeLast() }
        client.input.removeSubrange(...newline)
        client.lineDeadline = client.input.isEmpty ? 0 : cs_monotonic_ns().adding(configuration.lineTimeout)
        client.idleDeadline = cs_monotonic_ns().adding(configuration.idleTimeout)
        client.lastLineAt = cs_monotonic_ns()
        guard var session = client.session else { return false }
        client.session = nil
        client.handling = true
        counters.update { $0.lines += 1 }
        let lineProtocol = self.lineProtocol
        let id = client.id
        client.task = Task { [self] in
            let reply = await lineProtocol.handle(line, session: &session)
            complete(id, reply, session)
        }
        return true
    }

    private func startWrite(_ client: Client, _ reply: LineReply) {
        client.output = reply.bytes
        client.written = 0
        client.then = reply.then
        client.writeDeadline = cs_monotonic_ns().adding(configuration.writeTimeout)
        flush(client)
    }

    private func flush(_ client: Client) {
        while client.written < client.output.count {
            guard client.writable else { return }
            let result = client.output.withUnsafeBytes { bytes -> IOResult in
                let rest = UnsafeRawBufferPointer(rebasing: bytes[client.written...])
                return withUnsafeTemporaryAllocation(of: UnsafeRawBufferPointer.self, capacity: 1) { buffers in
                    buffers[0] = rest
                    return client.io.write(UnsafeBufferPointer(buffers))
                }
            }
            switch result {
            case .bytes(let count): client.written += count
            case .wouldBlock:
                client.writable = false
                return
            case .endOfStream, .failed:
                close(client)
                return
            }
        }
        client.output = []
        client.written = 0
        client.writeDeadline = 0
        switch client.then {
        case .close:
            close(client)
            return
        case .startTLS:
            client.then = .continue
            guard let tls, let session = tls.session(for: client.io.descriptor) else {
                close(client)
                return
            }
            client.io = TLSConnectionIO(descriptor: client.io.descriptor, session: session, logger: logger,
                                        remoteAddress: client.remote)
            // Nothing sent in plain text after the STARTTLS line counts as input once encrypted.
            client.input = []
            client.lineDeadline = 0
        case .continue:
            break
        }
        if client.peerClosed && client.input.firstIndex(of: 0x0A) == nil {
            close(client)
            return
        }
        drive(client)
    }

    /// Writes `reply` (best effort) and closes the connection.
    private func refuse(_ client: Client, _ reply: [UInt8]) {
        counters.update { $0.timedOutOrTooLong += 1 }
        client.input = []
        if !reply.isEmpty { startWrite(client, LineReply(reply, then: .close)) } else { close(client) }
    }

    private func scanDeadlines(_ now: Int64) {
        for client in Array(clients.values) {
            let writeLate = client.writeDeadline != 0 && now >= client.writeDeadline
            let lineLate = !client.handling && client.lineDeadline != 0 && now >= client.lineDeadline
            let idle = !client.handling && client.output.isEmpty && now >= client.idleDeadline
            if writeLate || lineLate || idle {
                counters.update { $0.timedOutOrTooLong += 1 }
                close(client)
            }
        }
    }

    private func close(_ client: Client) {
        guard clients.removeValue(forKey: client.id) != nil else { return }
        client.task?.cancel()
        // The session and the counters first: once the peer sees the connection end, both
        // already say so. A line being handled returns its session through the inbox; closed
        // there.
        if let session = client.session { lineProtocol.close(session) }
        counters.update { $0.open = clients.count }
        _ = cs_epoll_del(epoll, client.io.descriptor)
        client.io.close()
    }
}
