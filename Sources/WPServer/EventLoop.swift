import WPCSystem
import Glibc
import Synchronization
import WPLogging

/// One epoll event loop thread owning the listener and every connection.
///
/// The loop accepts, reads, parses and writes. Handlers run as tasks whose executor
/// preference is the loop itself (it is a `TaskExecutor`): a handler that does not suspend
/// runs to completion on the loop thread without a thread hop, and one that awaits elsewhere
/// comes back to the loop when it resumes. Results come back through ``complete(_:_:)``.
/// With ``HTTPServer/Configuration/runsHandlersOnEventLoop`` off, handlers run on the
/// global concurrent executor instead.
///
/// Safety of `@unchecked Sendable`: every stored `var` (and the connections) is only touched
/// on the loop thread, which is the only caller of `runLoop()` and everything it calls. Other
/// threads call only ``complete(_:_:)`` and ``requestShutdown()``, which touch nothing but the
/// `inbox` (a `Mutex`) and signal the eventfd while holding that lock and only while it is open.
final class EventLoop: TaskExecutor, ServerLoop, @unchecked Sendable {
    struct Inbox {
        var jobs: [UnownedJob] = []
        var completions: [(UInt64, EncodedResponse)] = []
        var shutdownRequested = false
        /// `true` while the loop is awake (or already signalled): producers need not signal.
        var wakePending = true
        var open = true
    }

    static let listenerID: UInt64 = 0
    static let wakeID: UInt64 = 1

    /// Handler name under which refused requests (400, 408, 413, 431, 503…) are reported.
    static let refusedHandlerName = "refused"

    let configuration: HTTPServer.Configuration
    let handler: any HTTPHandler
    /// Told of every request the server refuses before a handler sees it.
    let observer: (any RequestObserver)?
    /// Connections allowed at once: the configured cap, within the open-files limit.
    let connectionLimit: Int
    /// Connections whose read budget ran out, to read on next turn.
    var readAgain: [UInt64] = []
    /// Request body bytes booked by all connections (``HTTPServer/Configuration/maxBufferedBodyBytes``).
    var bufferedBodyBytes = 0
    let logger: Logger
    let inbox = Mutex(Inbox())
    let dates = HTTPDate()
    private let epoll: Int32
    private let wakeDescriptor: Int32
    private var listener: Int32
    private var nextID: UInt64 = 2
    var connections: [UInt64: Connection] = [:]
    let scratch: UnsafeMutableRawBufferPointer
    private var draining = false
    private var drainDeadline: Int64 = 0
    private var acceptPausedUntil: Int64 = 0
    private let scanInterval: Int64
    private var nextScan: Int64 = 0

    /// TLS contexts when the listener serves HTTPS.
    let tls: TLSContextStore?

    /// Takes ownership of the listening socket.
    init(listener: Int32, configuration: HTTPServer.Configuration, handler: any HTTPHandler, logger: Logger,
         tls: TLSContextStore? = nil, observer: (any RequestObserver)? = nil, openFilesLimit: Int = .max) throws(ServerError) {
        let epoll = cs_epoll_create()
        guard epoll >= 0 else { throw .system(operation: "epoll_create1", reason: Self.message(-epoll)) }
        let wake = cs_eventfd()
        guard wake >= 0 else {
            _ = cs_close(epoll)
            throw .system(operation: "eventfd", reason: Self.message(-wake))
        }
        _ = cs_epoll_add(epoll, listener, UInt32(CS_EV_IN), Self.listenerID)
        _ = cs_epoll_add(epoll, wake, UInt32(CS_EV_IN), Self.wakeID)
        self.epoll = epoll
        self.wakeDescriptor = wake
        self.listener = listener
        self.tls = tls
        self.configuration = configuration
        self.handler = handler
        self.observer = observer
        self.connectionLimit = Self.connectionLimit(configuration: configuration, openFilesLimit: openFilesLimit)
        self.logger = logger
        self.scratch = .allocate(byteCount: 64 * 1024, alignment: 16)
        let shortest = [configuration.headTimeout, configuration.bodyTimeout, configuration.idleTimeout,
                        configuration.writeTimeout].map(\.nanoseconds).min() ?? 1_000_000_000
        self.scanInterval = min(max(shortest / 4, 2_000_000), 250_000_000)
    }

    /// The configured connection cap, lowered to leave ``HTTPServer/Configuration/reservedDescriptors``
    /// of the open-files limit to the rest of the process (never below 1).
    static func connectionLimit(configuration: HTTPServer.Configuration, openFilesLimit: Int) -> Int {
        let room = openFilesLimit > configuration.reservedDescriptors ? openFilesLimit - configuration.reservedDescriptors : 1
        return max(1, min(configuration.maxConnections, room))
    }

    // MARK: Cross-thread entry points

    /// Hands a finished response to the loop. Callable from any thread.
    func complete(_ id: UInt64, _ response: EncodedResponse) {
        inbox.withLock { inbox in
            guard inbox.open else { return }
            inbox.completions.append((id, response))
            wakeLocked(&inbox)
        }
    }

    /// Runs a job of a handler task on the loop thread (or, once the loop has stopped, on
    /// the global concurrent executor, so no task is ever stranded).
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
        if !inbox.wakePending {
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
            if acceptPausedUntil != 0, now >= acceptPausedUntil, listener >= 0 {
                acceptPausedUntil = 0
                _ = cs_epoll_add(epoll, listener, UInt32(CS_EV_IN), Self.listenerID)
            }
            if now >= nextScan {
                scanTimeouts(now: now)
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
            let timeout = hasWork || !readAgain.isEmpty ? 0 : idle ? -1 : Int32(max(1, min(nextScan - now, 1_000_000_000) / 1_000_000))
            let count = events.withUnsafeMutableBufferPointer { buffer in
                cs_epoll_wait(epoll, buffer.baseAddress, Int32(buffer.count), timeout)
            }
            inbox.withLock { $0.wakePending = true }
            if count < 0 {
                logger.error("epoll_wait failed", ["error": "\(Self.message(-count))"])
                break
            }
            for index in 0..<Int(count) {
                let event = events[index]
                switch event.data {
                case Self.listenerID: acceptConnections()
                case Self.wakeID: cs_eventfd_drain(wakeDescriptor)
                default: connectionEvent(event.data, event.events)
                }
            }
            serveQueuedReads()
        }
        shutDownNow()
    }

    /// Runs queued handler jobs and applies completions and shutdown requests, a bounded
    /// number of rounds so socket events are never starved.
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
            for (id, response) in completions {
                guard let connection = connections[id] else { continue }
                connection.task = nil
                responseReady(connection, response)
            }
        }
    }

    private func beginDrain(now: Int64) {
        draining = true
        drainDeadline = now.adding(configuration.shutdownGracePeriod)
        if listener >= 0 {
            _ = cs_epoll_del(epoll, listener)
            _ = cs_close(listener)
            listener = -1
        }
        for connection in Array(connections.values) {
            switch connection.phase {
            case .idle, .head, .body, .lingering: close(connection)
            case .processing, .writing: connection.closeAfterResponse = true
            }
        }
        logger.debug("http server draining", ["in_flight": .int(connections.count)])
    }

    /// Releases everything without running (the loop thread could not be started).
    func discard() {
        shutDownNow()
    }

    private func shutDownNow() {
        for connection in Array(connections.values) {
            connection.task?.cancel()
            close(connection)
        }
        let stranded = inbox.withLock { inbox in
            inbox.open = false
            inbox.completions.removeAll()
            defer { inbox.jobs.removeAll() }
            return inbox.jobs
        }
        for job in stranded { globalConcurrentExecutor.enqueue(job) }
        if listener >= 0 { _ = cs_close(listener) }
        listener = -1
        _ = cs_close(wakeDescriptor)
        _ = cs_close(epoll)
        scratch.deallocate()
    }

    private func acceptConnections() {
        var peer = [CChar](repeating: 0, count: 64)
        while listener >= 0 {
            let descriptor = peer.withUnsafeMutableBufferPointer { cs_accept(listener, $0.baseAddress, $0.count) }
            if descriptor < 0 {
                let code = -descriptor
                if code == EAGAIN || code == ECONNABORTED || code == EPROTO { return }
                if code == EMFILE || code == ENFILE || code == ENOBUFS || code == ENOMEM {
                    // Out of descriptors: stop polling the listener briefly instead of spinning.
                    logger.warn("accept failed; pausing accepts", ["error": "\(Self.message(code))"])
                    _ = cs_epoll_del(epoll, listener)
                    acceptPausedUntil = cs_monotonic_ns() + 100_000_000
                    return
                }
                logger.warn("accept failed", ["error": "\(Self.message(code))"])
                return
            }
            if connections.count >= connectionLimit, !evictWaitingConnection() {
                _ = cs_close(descriptor)
                logger.debug("connection refused: limit reached", ["limit": .int(connectionLimit)])
                continue
            }
            let id = nextID
            nextID += 1
            let remote = String(decoding: peer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            let io: any ConnectionIO
            if let tls {
                // TLS: a session from the current (possibly just reloaded) context.
                guard let session = tls.session(for: descriptor) else {
                    _ = cs_close(descriptor)
                    continue
                }
                io = TLSConnectionIO(descriptor: descriptor, session: session, logger: logger, remoteAddress: remote)
            } else {
                io = SocketIO(descriptor: descriptor)
            }
            let handler = self.handler
            let parser = HTTPRequestParser(limits: configuration.parserLimits, acceptsBody: { handler.acceptsBody($0) })
            let now = cs_monotonic_ns()
            let connection = Connection(id: id, io: io, remoteAddress: remote, parser: parser, acceptedAt: now)
            let events = UInt32(CS_EV_IN | CS_EV_OUT | CS_EV_RDHUP) | UInt32(1) << 31 // EPOLLET
            guard cs_epoll_add(epoll, descriptor, events, id) == 0 else {
                _ = cs_close(descriptor)
                continue
            }
            connections[id] = connection
            connection.deadline = now.adding(configuration.headTimeout)
        }
    }

    /// At the connection cap: closes the longest-open connection that has no request in
    /// progress (idle between requests, or part of a head received), so idle or slow peers
    /// cannot lock out new ones. A connection whose bytes wait unread in the kernel (a request
    /// that arrived in the same loop turn) is passed over. `false` when none can go.
    private func evictWaitingConnection() -> Bool {
        let waiting = connections.values.filter { $0.phase == .idle || $0.phase == .head || $0.phase == .lingering }
        let chosen = Self.evictionCandidate(waiting.map { (id: $0.id, acceptedAt: $0.acceptedAt) }) { id in
            guard let descriptor = connections[id]?.io.descriptor, descriptor >= 0 else { return false }
            var byte: UInt8 = 0
            return recv(descriptor, &byte, 1, Int32(MSG_PEEK | MSG_DONTWAIT)) > 0
        }
        guard let chosen, let oldest = connections[chosen] else { return false }
        logger.debug("connection closed to make room", ["remote": .string(oldest.remoteAddress)])
        close(oldest)
        return true
    }

    /// The oldest of `waiting` (by `acceptedAt`) without unread bytes, looking at the
    /// `tries` oldest only (one peek each); nil when they all have a request pending.
    static func evictionCandidate(_ waiting: [(id: UInt64, acceptedAt: Int64)], tries: Int = 8,
                                  hasUnreadBytes: (UInt64) -> Bool) -> UInt64? {
        var skipped = Set<UInt64>()
        while skipped.count < tries {
            guard let oldest = waiting.lazy.filter({ !skipped.contains($0.id) }).min(by: { $0.acceptedAt < $1.acceptedAt })
            else { return nil }
            if !hasUnreadBytes(oldest.id) { return oldest.id }
            skipped.insert(oldest.id)
        }
        return nil
    }

    private func connectionEvent(_ id: UInt64, _ events: UInt32) {
        guard let connection = connections[id] else { return }
        if events & UInt32(CS_EV_IN | CS_EV_RDHUP | CS_EV_HUP | CS_EV_ERR) != 0 { connection.readable = true }
        if events & UInt32(CS_EV_RDHUP | CS_EV_HUP | CS_EV_ERR) != 0 { connection.peerClosed = true }
        if events & UInt32(CS_EV_HUP | CS_EV_ERR) != 0, connection.phase == .processing {
            // Reset or fully closed while the handler runs: nobody can read the answer.
            // (A half-close alone is a valid way to end a request, so it is not enough.)
            close(connection)
            return
        }
        if events & UInt32(CS_EV_OUT | CS_EV_HUP | CS_EV_ERR) != 0 { connection.writable = true }
        // TLS: a read may wait for writability (handshake) and a write for readability.
        if events & UInt32(CS_EV_OUT) != 0, connection.io.readWaitsForWritable { connection.readable = true }
        if events & UInt32(CS_EV_IN) != 0, connection.io.writeWaitsForReadable { connection.writable = true }
        drive(connection)
    }

    /// Closes the connection and forgets it. Safe to call twice.
    func close(_ connection: Connection) {
        guard connections.removeValue(forKey: connection.id) != nil else { return }
        releaseBody(connection)
        connection.task?.cancel()
        connection.task = nil
        _ = cs_epoll_del(epoll, connection.io.descriptor)
        connection.io.close()
    }

    static func message(_ code: Int32) -> String { String(cString: strerror(code)) }
}
