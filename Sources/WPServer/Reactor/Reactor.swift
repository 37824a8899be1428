import WPPOSIX
import WPRuntime
import WPCSystem
import Glibc
import Synchronization
import WPLogging

/// One accepted connection as the ``Reactor`` sees it; a protocol's connection type adds its
/// own state. Confined to the loop thread.
package class ReactorConnection {
    package let id: UInt64
    /// Plain TCP, or TLS once a handshake was started on it (``Reactor/startTLS(_:)``).
    package var io: any ConnectionIO
    /// The peer, `ip:port`.
    package let remoteAddress: String
    /// Monotonic nanoseconds of the accept.
    package let acceptedAt: Int64
    package var readable = true
    package var writable = true
    /// The peer shut down its side (or the socket failed): reads must continue to the end.
    package var peerClosed = false
    /// Queued by ``Reactor/readNextTurn(_:)``.
    package var readQueued = false
    /// Monotonic nanoseconds after which ``ConnectionDriver/deadlinePassed(_:now:in:)`` is
    /// called (at the next deadline scan); 0 when none.
    package var deadline: Int64 = 0
    /// The task handling the connection's current request or line; cancelled on close.
    package var task: Task<Void, Never>?

    init(id: UInt64, io: any ConnectionIO, remoteAddress: String, acceptedAt: Int64) {
        self.id = id
        self.io = io
        self.remoteAddress = remoteAddress
        self.acceptedAt = acceptedAt
    }
}

/// What a server's connections have done since it started (``WPHTTPServer/statistics``,
/// ``LineServer/statistics``).
public struct ConnectionStatistics: Sendable, Equatable {
    /// Connections open now.
    public var open = 0
    /// Connections accepted since the start.
    public var accepted = 0
    /// Refused at the cap: no open connection could be closed to make room.
    public var refused = 0
    /// Closed to make room for a new connection at the cap.
    public var evicted = 0
    /// Closed by a limit: a request or line too long or not finished in time, idleness, a
    /// reply the peer did not take in time.
    public var closedByLimits = 0

    /// Creates the figures of a server that has done nothing yet.
    public init() {}
}

/// A server's ``ConnectionStatistics``, kept by its reactor and read from any thread.
package final class ConnectionCounters: Sendable {
    private let value = Mutex(ConnectionStatistics())
    package init() {}
    package var current: ConnectionStatistics { value.withLock { $0 } }
    package func update(_ change: (inout ConnectionStatistics) -> Void) { value.withLock { change(&$0) } }
}

/// How readily a connection makes room at the cap: the lowest rank goes first. `activity`
/// says what the connection has done (0: nothing, or nothing worth keeping; higher: more),
/// `since` orders equal activity (the oldest first). `notBefore` (monotonic ns, 0: none) is a
/// grace: when the lowest-ranked connection is still in it, the reactor leaves new connections
/// in the listen backlog until it ends (or a connection closes) rather than close it sooner or
/// pass it over for a higher-ranked one. It does not order.
package struct EvictionRank: Comparable {
    package var activity: Int
    package var since: Int64
    package var notBefore: Int64 = 0

    package init(activity: Int, since: Int64, notBefore: Int64 = 0) {
        self.activity = activity
        self.since = since
        self.notBefore = notBefore
    }

    package static func < (lhs: EvictionRank, rhs: EvictionRank) -> Bool {
        (lhs.activity, lhs.since) < (rhs.activity, rhs.since)
    }

    package static func == (lhs: EvictionRank, rhs: EvictionRank) -> Bool {
        (lhs.activity, lhs.since) == (rhs.activity, rhs.since)
    }
}

/// A protocol served by a ``Reactor`` (HTTP/1.1, a line protocol): what happens on a
/// connection between its accept and its close. Every method runs on the loop thread.
package protocol ConnectionDriver: AnyObject {
    associatedtype Connection: ReactorConnection
    /// What a handler task hands back to the loop through ``Reactor/complete(_:_:)``.
    associatedtype Completion: Sendable

    /// The protocol's timeouts: the shortest sets how often deadlines are scanned.
    var timeouts: [Duration] { get }
    /// How long a shutdown lets connections finish what they are doing (zero: close at once).
    var shutdownGracePeriod: Duration { get }
    /// The state of a connection just accepted (its ``ReactorConnection/deadline`` set).
    func makeConnection(id: UInt64, io: any ConnectionIO, remoteAddress: String, now: Int64) -> Connection
    /// Makes whatever progress the connection's state and readiness allow.
    func drive(_ connection: Connection, in loop: some ConnectionLoop<Self>)
    /// Whether a handler is running for the connection: a reset peer then closes it at once,
    /// since nobody can read the answer (a half-close alone is a valid way to end a request).
    func isHandling(_ connection: Connection) -> Bool
    /// A handler finished for a connection that is still open.
    func complete(_ connection: Connection, _ completion: Completion, in loop: some ConnectionLoop<Self>)
    /// A handler finished for a connection that is gone, or after the loop stopped.
    func dropped(_ completion: Completion)
    /// How readily the connection may be closed to make room at the cap; `nil` when it must
    /// not be (a request in progress, a logged-in monitor).
    func evictionRank(_ connection: Connection) -> EvictionRank?
    /// At the cap with no connection to close but some handler running: whether the newcomer
    /// waits in the backlog for it to finish (`false`: it is closed at once).
    var newcomersWaitForHandlers: Bool { get }
    /// The connection's deadline passed.
    func deadlinePassed(_ connection: Connection, now: Int64, in loop: some ConnectionLoop<Self>)
    /// Shutdown began: close the connection now or let it finish (within the grace period).
    func drain(_ connection: Connection, in loop: some ConnectionLoop<Self>)
    /// The connection left the table; its socket is closed right after.
    func closed(_ connection: Connection, in loop: some ConnectionLoop<Self>)
    /// A handler's result arrived for `connection` (`nil` when it is gone). The default
    /// hands it to ``complete(_:_:in:)`` or ``dropped(_:)``.
    func deliver(_ completion: Completion, to connection: Connection?, in loop: some ConnectionLoop<Self>)
    /// A datagram listener is readable (``Reactor/Listener/datagram``); never called for a
    /// stream listener, whose connections the reactor accepts.
    func listenerReadable(in loop: some ConnectionLoop<Self>)
}

extension ConnectionDriver {
    package func deliver(_ completion: Completion, to connection: Connection?, in loop: some ConnectionLoop<Self>) {
        if let connection { complete(connection, completion, in: loop) } else { dropped(completion) }
    }

    package func listenerReadable(in loop: some ConnectionLoop<Self>) {}

    package var newcomersWaitForHandlers: Bool { false }
}

/// The one epoll event loop under ``WPHTTPServer`` and ``LineServer``: a thread of its own owning
/// the listener and every connection. It accepts (a connection cap with eviction, a pause when
/// descriptors run out), keeps the connection table, routes readiness to the
/// ``ConnectionDriver``, scans deadlines, starts TLS, takes results from other threads through
/// its inbox, and drains on shutdown. What a connection's bytes mean is the driver's.
///
/// It is also a `TaskExecutor`: a handler task preferring it runs on the loop thread without a
/// thread hop (``WPHTTPServer`` uses this for handlers serving a pre-rendered body).
///
/// Safety of `@unchecked Sendable`: every stored `var`, the driver and the connections are only
/// touched on the loop thread, which is the only caller of `runLoop()` and everything it calls.
/// Other threads call only ``complete(_:_:)``, ``enqueue(_:)`` and ``requestShutdown()``, which
/// touch nothing but the `inbox` (a `Mutex`) and signal the eventfd while holding that lock and
/// only while it is open.
final class Reactor<Driver: ConnectionDriver>: ConnectionLoop, ServerLoop, @unchecked Sendable {
    /// What the listening socket is.
    enum Listener {
        /// A TCP listener: the reactor accepts connections into its table.
        case stream
        /// A UDP socket: the driver reads its datagrams (``ConnectionDriver/listenerReadable(in:)``).
        case datagram
    }

    private struct Inbox {
        var jobs: [UnownedJob] = []
        var completions: [(UInt64, Driver.Completion)] = []
        var shutdownRequested = false
        /// `true` while the loop is awake (or already signalled): producers need not signal.
        var wakePending = true
        /// `false` once the loop closed its descriptors: nothing may signal them any more.
        var open = true
    }

    private static var listenerID: UInt64 { 0 }
    private static var wakeID: UInt64 { 1 }

    let driver: Driver
    let logger: WPLogger
    /// The server's connection statistics: the reactor counts accepts, refusals, evictions and
    /// open connections; drivers count closes by a limit.
    let counters: ConnectionCounters
    /// Connections allowed at once.
    let connectionLimit: Int
    /// TLS contexts: a handshake starts at accept when `tlsAtAccept`, else when the driver asks.
    let tls: TLSContextStore?
    private let tlsAtAccept: Bool
    private let listenerKind: Listener
    private let name: String
    /// Read buffer shared by every connection (confined to the loop thread).
    let scratch: UnsafeMutableRawBufferPointer
    private(set) var connections: [UInt64: Driver.Connection] = [:]
    private let inbox = Mutex(Inbox())
    private let epoll: Int32
    private let wakeDescriptor: Int32
    private var listener: Int32
    private var nextID: UInt64 = 2
    /// Connections whose read budget ran out, to drive again next turn.
    private var readAgain: [UInt64] = []
    private var draining = false
    private var drainDeadline: Int64 = 0
    private var acceptPausedUntil: Int64 = 0
    /// The pause waits for room at the cap (an eviction grace): it also ends once a connection closes.
    private var acceptWaitsForRoom = false
    private let scanInterval: Int64
    private var nextScan: Int64 = 0

    /// Takes ownership of the listening socket once it returns (the caller closes it when this throws).
    /// `name` says which server it is in log lines (`http`, `line`, `udp`).
    init(name: String, listener: Int32, kind: Listener = .stream, driver: Driver, connectionLimit: Int,
         tls: TLSContextStore?, tlsAtAccept: Bool, counters: ConnectionCounters, logger: WPLogger) throws(ServerError) {
        let epoll = cs_epoll_create()
        guard epoll >= 0 else { throw .system(operation: "epoll_create1", reason: systemErrorText(-epoll)) }
        let wake = cs_eventfd()
        guard wake >= 0 else {
            _ = cs_close(epoll)
            throw .system(operation: "eventfd", reason: systemErrorText(-wake))
        }
        _ = cs_epoll_add(epoll, listener, UInt32(CS_EV_IN), Self.listenerID)
        _ = cs_epoll_add(epoll, wake, UInt32(CS_EV_IN), Self.wakeID)
        self.epoll = epoll
        self.wakeDescriptor = wake
        self.listener = listener
        self.driver = driver
        self.counters = counters
        self.connectionLimit = max(1, connectionLimit)
        self.tls = tls
        self.tlsAtAccept = tlsAtAccept && tls != nil
        self.listenerKind = kind
        self.name = name
        self.logger = logger
        self.scratch = .allocate(byteCount: 64 * 1024, alignment: 16)
        self.scanInterval = Self.scanInterval(timeouts: driver.timeouts)
    }

    /// How often deadlines are scanned: a quarter of the shortest timeout, between 2 ms and 250 ms.
    static func scanInterval(timeouts: [Duration]) -> Int64 {
        let shortest = timeouts.map(\.nanoseconds).min() ?? 1_000_000_000
        return min(max(shortest / 4, 2_000_000), 250_000_000)
    }

    // MARK: Cross-thread entry points

    /// Hands a handler's result for connection `id` to the loop. Callable from any thread;
    /// after the loop stopped the result goes to ``ConnectionDriver/dropped(_:)``.
    func complete(_ id: UInt64, _ completion: Driver.Completion) {
        let accepted = inbox.withLock { inbox in
            guard inbox.open else { return false }
            inbox.completions.append((id, completion))
            wakeLocked(&inbox)
            return true
        }
        if !accepted { driver.dropped(completion) }
    }

    /// Runs a job of a task preferring this executor on the loop thread (or, once the loop
    /// has stopped, on the global concurrent executor, so no task is ever stranded).
    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let accepted = inbox.withLock { inbox in
            guard inbox.open else { return false }
            inbox.jobs.append(job)
            wakeLocked(&inbox)
            return true
        }
        if !accepted { globalConcurrentExecutor.enqueue(job) }
    }

    /// Starts a graceful shutdown. Callable from any thread, any number of times.
    func requestShutdown() {
        inbox.withLock { inbox in
            guard inbox.open else { return }
            inbox.shutdownRequested = true
            wakeLocked(&inbox)
        }
    }

    private func wakeLocked(_ inbox: inout Inbox) {
        if inbox.open && !inbox.wakePending {
            inbox.wakePending = true
            cs_eventfd_signal(wakeDescriptor)
        }
    }

    // MARK: The loop

    /// Runs until shutdown completes; then every descriptor the loop owns is closed.
    func runLoop() {
        var events = [cs_event](repeating: cs_event(), count: 256)
        while true {
            var now = cs_monotonic_ns()
            processInbox(now: now)
            now = cs_monotonic_ns()
            if draining && (connections.isEmpty || now >= drainDeadline) { break }
            if acceptPausedUntil != 0, listener >= 0,
               now >= acceptPausedUntil || (acceptWaitsForRoom && connections.count < connectionLimit) {
                acceptPausedUntil = 0
                acceptWaitsForRoom = false
                _ = cs_epoll_add(epoll, listener, UInt32(CS_EV_IN), Self.listenerID)
            }
            if now >= nextScan {
                scanDeadlines(now: now)
                nextScan = now + scanInterval
            }
            let idle = connections.isEmpty && !draining && acceptPausedUntil == 0
            let hasWork = inbox.withLock { inbox in
                if !inbox.jobs.isEmpty || !inbox.completions.isEmpty || (inbox.shutdownRequested && !draining) {
                    return true
                }
                inbox.wakePending = false
                return false
            }
            let wakeAt = acceptPausedUntil != 0 ? min(nextScan, acceptPausedUntil) : nextScan
            let timeout = hasWork || !readAgain.isEmpty ? 0
                : idle ? -1 : Int32(max(1, min(wakeAt - now, 1_000_000_000) / 1_000_000))
            let count = events.withUnsafeMutableBufferPointer { buffer in
                cs_epoll_wait(epoll, buffer.baseAddress, Int32(buffer.count), timeout)
            }
            inbox.withLock { $0.wakePending = true }
            if count < 0 {
                logger.error("epoll_wait failed", ["error": .string(systemErrorText(-count))])
                break
            }
            for index in 0..<Int(count) {
                let event = events[index]
                switch event.data {
                case Self.listenerID:
                    switch listenerKind {
                    case .stream: acceptConnections()
                    case .datagram: driver.listenerReadable(in: self)
                    }
                case Self.wakeID: cs_eventfd_drain(wakeDescriptor)
                default: connectionEvent(event.data, event.events)
                }
            }
            serveQueuedReads()
        }
        shutDownNow()
    }

    /// Runs queued jobs and applies completions and a shutdown request, a bounded number of
    /// rounds so socket events are never starved.
    private func processInbox(now: Int64) {
        for _ in 0..<8 {
            let (jobs, completions, shutdown) = inbox.withLock { inbox in
                defer {
                    inbox.jobs.removeAll(keepingCapacity: true)
                    inbox.completions.removeAll(keepingCapacity: true)
                }
                return (inbox.jobs, inbox.completions, inbox.shutdownRequested)
            }
            if shutdown && !draining { beginDrain(now: now) }
            if jobs.isEmpty && completions.isEmpty { return }
            for job in jobs { job.runSynchronously(on: asUnownedTaskExecutor()) }
            for (id, completion) in completions {
                let connection = connections[id]
                connection?.task = nil
                driver.deliver(completion, to: connection, in: self)
            }
        }
    }

    private func beginDrain(now: Int64) {
        draining = true
        drainDeadline = now.adding(driver.shutdownGracePeriod)
        if listener >= 0 {
            _ = cs_epoll_del(epoll, listener)
            _ = cs_close(listener)
            listener = -1
        }
        for connection in Array(connections.values) { driver.drain(connection, in: self) }
        logger.debug("\(name) server draining", ["in_flight": .int(connections.count)])
    }

    /// Releases everything without running (the loop thread could not be started).
    func discard() {
        shutDownNow()
    }

    private func shutDownNow() {
        for connection in Array(connections.values) { close(connection) }
        let (jobs, completions) = inbox.withLock { inbox in
            inbox.open = false
            defer {
                inbox.jobs.removeAll()
                inbox.completions.removeAll()
            }
            return (inbox.jobs, inbox.completions)
        }
        for job in jobs { globalConcurrentExecutor.enqueue(job) }
        if listener >= 0 { _ = cs_close(listener) }
        listener = -1
        _ = cs_close(wakeDescriptor)
        _ = cs_close(epoll)
        scratch.deallocate()
        for (_, completion) in completions { driver.dropped(completion) }
    }

    private func acceptConnections() {
        var peer = [CChar](repeating: 0, count: 64)
        while listener >= 0 {
            // At the cap, room is decided before accepting (a connection is closed only for one
            // that is there): evict, refuse, or leave it in the backlog while a grace runs.
            var victim: Driver.Connection?
            var full = false
            if connections.count >= connectionLimit {
                guard listenerHasPending() else { return }
                switch room() {
                case .evict(let candidate, let rank):
                    if rank.notBefore > cs_monotonic_ns() {
                        _ = cs_epoll_del(epoll, listener)
                        acceptPausedUntil = rank.notBefore
                        acceptWaitsForRoom = true
                        return
                    }
                    victim = candidate
                case .unreadRequests:
                    // Read or answered first: accepting resumes in a millisecond (no spinning on
                    // the listener).
                    _ = cs_epoll_del(epoll, listener)
                    acceptPausedUntil = cs_monotonic_ns() + 1_000_000
                    acceptWaitsForRoom = true
                    return
                case .none:
                    full = true
                }
            }
            let descriptor = peer.withUnsafeMutableBufferPointer { cs_accept(listener, $0.baseAddress, $0.count) }
            if descriptor < 0 {
                let code = -descriptor
                if code == EAGAIN || code == ECONNABORTED || code == EPROTO { return }
                if code == EMFILE || code == ENFILE || code == ENOBUFS || code == ENOMEM {
                    // Out of descriptors: stop polling the listener briefly instead of spinning.
                    logger.warn("accept failed; pausing accepts", ["error": .string(systemErrorText(code))])
                    _ = cs_epoll_del(epoll, listener)
                    acceptPausedUntil = cs_monotonic_ns() + 100_000_000
                    acceptWaitsForRoom = false
                    return
                }
                logger.warn("accept failed", ["error": .string(systemErrorText(code))])
                return
            }
            let remote = String(cBuffer: peer)
            if full {
                _ = cs_close(descriptor)
                logger.debug("connection refused: limit reached", ["limit": .int(connectionLimit)])
                counters.update { $0.refused += 1 }
                continue
            }
            if let victim {
                logger.debug("connection closed to make room", ["remote": .string(victim.remoteAddress)])
                counters.update { $0.evicted += 1 }
                close(victim)
            }
            var io: any ConnectionIO = SocketIO(descriptor: descriptor)
            if tlsAtAccept {
                guard let tlsIO = tlsIO(for: descriptor, remoteAddress: remote) else {
                    _ = cs_close(descriptor)
                    continue
                }
                io = tlsIO
            }
            let id = nextID
            nextID += 1
            let connection = driver.makeConnection(id: id, io: io, remoteAddress: remote, now: cs_monotonic_ns())
            let events = UInt32(CS_EV_IN | CS_EV_OUT | CS_EV_RDHUP) | UInt32(1) << 31 // EPOLLET
            guard cs_epoll_add(epoll, descriptor, events, id) == 0 else {
                driver.closed(connection, in: self)
                connection.io.close()
                continue
            }
            connections[id] = connection
            counters.update {
                $0.accepted += 1
                $0.open = connections.count
            }
        }
    }

    /// Where room at the cap comes from.
    private enum Room {
        /// The connection to close (once its rank's grace is over).
        case evict(Driver.Connection, EvictionRank)
        /// The few least worth keeping all have a request waiting unread (connections accepted
        /// this turn, whose first bytes are read next), or every connection that could go is
        /// being answered: none is closed for it, and the newcomer waits in the backlog.
        case unreadRequests
        /// Nothing may be closed (every connection protected or busy): the newcomer is refused.
        case none
    }

    /// At the cap: the connection of lowest ``EvictionRank`` whose socket holds no unread bytes
    /// (a request that arrived in this loop turn is not passed over for a quiet one).
    private func room() -> Room {
        let ranked = connections.values.compactMap { connection in
            driver.evictionRank(connection).map { (id: connection.id, rank: $0) }
        }
        if ranked.isEmpty {
            // A line being handled is answered soon (then its connection may make room).
            return driver.newcomersWaitForHandlers && connections.values.contains(where: driver.isHandling) ? .unreadRequests : .none
        }
        let chosen = Self.evictionCandidate(ranked) { id in
            guard let descriptor = connections[id]?.io.descriptor, descriptor >= 0 else { return false }
            var byte: UInt8 = 0
            return recv(descriptor, &byte, 1, Int32(MSG_PEEK | MSG_DONTWAIT)) > 0
        }
        guard let chosen, let connection = connections[chosen], let rank = ranked.first(where: { $0.id == chosen })?.rank
        else { return .unreadRequests }
        return .evict(connection, rank)
    }

    /// Whether a connection waits in the listen backlog.
    private func listenerHasPending() -> Bool {
        var entry = pollfd(fd: listener, events: Int16(POLLIN), revents: 0)
        return poll(&entry, 1, 0) > 0 && entry.revents & Int16(POLLIN) != 0
    }

    /// The lowest-ranked of `ranked` without unread bytes, looking at the `tries` lowest only
    /// (one peek each); nil when they all have bytes pending.
    static func evictionCandidate(_ ranked: [(id: UInt64, rank: EvictionRank)], tries: Int = 8,
                                  hasUnreadBytes: (UInt64) -> Bool) -> UInt64? {
        var skipped = Set<UInt64>()
        while skipped.count < tries {
            guard let lowest = ranked.lazy.filter({ !skipped.contains($0.id) }).min(by: { $0.rank < $1.rank })
            else { return nil }
            if !hasUnreadBytes(lowest.id) { return lowest.id }
            skipped.insert(lowest.id)
        }
        return nil
    }

    /// A TLS session from the current (possibly just reloaded) context; `nil` when none.
    private func tlsIO(for descriptor: Int32, remoteAddress: String) -> TLSConnectionIO? {
        guard let tls, let session = tls.session(for: descriptor) else { return nil }
        return TLSConnectionIO(descriptor: descriptor, session: session, logger: logger, remoteAddress: remoteAddress)
    }

    /// Starts TLS on a connection (the next bytes are a handshake); `false` when the listener
    /// has no certificate or no session could be made.
    func startTLS(_ connection: Driver.Connection) -> Bool {
        guard let io = tlsIO(for: connection.io.descriptor, remoteAddress: connection.remoteAddress) else { return false }
        connection.io = io
        return true
    }

    private func connectionEvent(_ id: UInt64, _ events: UInt32) {
        guard let connection = connections[id] else { return }
        if events & UInt32(CS_EV_IN | CS_EV_RDHUP | CS_EV_HUP | CS_EV_ERR) != 0 { connection.readable = true }
        if events & UInt32(CS_EV_RDHUP | CS_EV_HUP | CS_EV_ERR) != 0 { connection.peerClosed = true }
        if events & UInt32(CS_EV_HUP | CS_EV_ERR) != 0, driver.isHandling(connection) {
            // Reset or fully closed while a handler runs: nobody can read the answer.
            close(connection)
            return
        }
        if events & UInt32(CS_EV_OUT | CS_EV_HUP | CS_EV_ERR) != 0 { connection.writable = true }
        // TLS: a read may wait for writability (handshake) and a write for readability.
        if events & UInt32(CS_EV_OUT) != 0, connection.io.readWaitsForWritable { connection.readable = true }
        if events & UInt32(CS_EV_IN) != 0, connection.io.writeWaitsForReadable { connection.writable = true }
        driver.drive(connection, in: self)
    }

    /// Drives the connection again on the next turn of the loop, after the other connections
    /// and the timers had theirs (its socket may still hold bytes).
    func readNextTurn(_ connection: Driver.Connection) {
        guard !connection.readQueued else { return }
        connection.readQueued = true
        readAgain.append(connection.id)
    }

    private func serveQueuedReads() {
        let queued = readAgain
        readAgain.removeAll(keepingCapacity: true)
        for id in queued {
            guard let connection = connections[id] else { continue }
            connection.readQueued = false
            driver.drive(connection, in: self)
        }
    }

    private func scanDeadlines(now: Int64) {
        for connection in Array(connections.values) where connection.deadline != 0 && now >= connection.deadline {
            guard connections[connection.id] != nil else { continue }
            driver.deadlinePassed(connection, now: now, in: self)
        }
    }


    var now: Int64 { cs_monotonic_ns() }

    func receiveDatagram(into buffer: UnsafeMutableRawBufferPointer) -> ReceivedDatagram? {
        guard listener >= 0 else { return nil }
        var peer = cs_peer()
        var kernelDrops: Int64 = -1
        return withUnsafeTemporaryAllocation(of: CChar.self, capacity: 64) { text in
            text.initialize(repeating: 0)
            let length = cs_recv_datagram(listener, buffer.baseAddress, buffer.count, &peer, text.baseAddress, text.count, &kernelDrops)
            guard length >= 0 else { return nil } // EAGAIN: drained (anything else: next readiness)
            let remote = String(decoding: UnsafeRawBufferPointer(text).prefix { $0 != 0 }, as: UTF8.self)
            return ReceivedDatagram(length: length, peer: peer, remote: remote, kernelDrops: kernelDrops)
        }
    }

    func sendDatagram(_ bytes: UnsafeRawBufferPointer, to peer: cs_peer) -> Int? {
        guard listener >= 0 else { return nil }
        var peer = peer
        return cs_send_datagram(listener, bytes.baseAddress, bytes.count, &peer)
    }

    /// Whether the connection is still in the table.
    func isOpen(_ connection: Driver.Connection) -> Bool {
        connections[connection.id] != nil
    }

    /// Closes the connection and forgets it (cancelling its handler task). Safe to call twice.
    func close(_ connection: Driver.Connection) {
        guard connections.removeValue(forKey: connection.id) != nil else { return }
        forgetClosed(connection, openConnections: connections.count)
        _ = cs_epoll_del(epoll, connection.io.descriptor)
        connection.io.close()
    }

}
