import WPCSystem
import Glibc
import WPLogging

/// HTTP/1.1 on a ``Reactor``: read, parse, dispatch to the ``HTTPHandler``, write, linger and
/// time out, per connection. Confined to the reactor's thread.
///
/// Handlers run as tasks: one serving a pre-rendered body (with
/// ``WPHTTPServer/Configuration/runsHandlersOnEventLoop``) prefers the reactor as its executor,
/// so it runs to completion on the loop thread without a thread hop; any other runs on the
/// global concurrent executor. Results come back through ``Reactor/complete(_:_:)``.
final class HTTPConnectionDriver: ConnectionDriver {
    typealias Loop = ConnectionLoop<HTTPConnectionDriver>

    /// Handler name under which refused requests (400, 408, 413, 431, 503…) are reported.
    static let refusedHandlerName = "refused"

    let configuration: WPHTTPServer.Configuration
    let handler: any HTTPHandler
    /// Told of every request the server refuses before a handler sees it.
    let observer: (any RequestObserver)?
    let logger: WPLogger
    let dates = HTTPDate()
    /// Request body bytes booked by all connections (``WPHTTPServer/Configuration/maxBufferedBodyBytes``).
    private var bufferedBodyBytes = 0

    init(configuration: WPHTTPServer.Configuration, handler: any HTTPHandler, observer: (any RequestObserver)?,
         logger: WPLogger) {
        self.configuration = configuration
        self.handler = handler
        self.observer = observer
        self.logger = logger
    }

    /// The configured connection cap, lowered to leave ``WPHTTPServer/Configuration/reservedDescriptors``
    /// of the open-files limit to the rest of the process (never below 1).
    static func connectionLimit(configuration: WPHTTPServer.Configuration, openFilesLimit: Int) -> Int {
        let room = openFilesLimit > configuration.reservedDescriptors ? openFilesLimit - configuration.reservedDescriptors : 1
        return max(1, min(configuration.maxConnections, room))
    }

    // MARK: ConnectionDriver

    var timeouts: [Duration] {
        [configuration.headTimeout, configuration.bodyTimeout, configuration.idleTimeout, configuration.writeTimeout]
    }

    var shutdownGracePeriod: Duration { configuration.shutdownGracePeriod }

    func makeConnection(id: UInt64, io: any ConnectionIO, remoteAddress: String, now: Int64) -> HTTPConnection {
        let handler = self.handler
        let parser = HTTPRequestParser(limits: configuration.parserLimits, acceptsBody: { handler.acceptsBody($0) })
        let connection = HTTPConnection(id: id, io: io, remoteAddress: remoteAddress, parser: parser, acceptedAt: now)
        connection.deadline = now.adding(configuration.headTimeout)
        return connection
    }

    func isHandling(_ connection: HTTPConnection) -> Bool { connection.phase == .processing }

    func complete(_ connection: HTTPConnection, _ completion: EncodedResponse, in loop: some Loop) {
        responseReady(connection, completion, in: loop)
    }

    func dropped(_ completion: EncodedResponse) {}

    /// At the cap, what makes room first: a connection that never sent a byte or lingers after
    /// an error, then one with part of a head, then a keep-alive connection between requests
    /// (a scraper's), the oldest first within each; never one whose request is in progress.
    func evictionRank(_ connection: HTTPConnection) -> EvictionRank? {
        switch connection.phase {
        case .lingering: return EvictionRank(activity: 0, since: connection.acceptedAt)
        case .idle where connection.requestCount == 0 && connection.buffer.isEmpty:
            return EvictionRank(activity: 0, since: connection.acceptedAt)
        case .head: return EvictionRank(activity: 1, since: connection.acceptedAt)
        case .idle: return EvictionRank(activity: 2, since: connection.acceptedAt)
        case .body, .processing, .writing: return nil
        }
    }

    /// Shutdown: connections between requests close now; a request in flight is answered
    /// (announcing `Connection: close`) within the grace period.
    func drain(_ connection: HTTPConnection, in loop: some Loop) {
        switch connection.phase {
        case .idle, .head, .body, .lingering: loop.close(connection)
        case .processing, .writing: connection.closeAfterResponse = true
        }
    }

    func closed(_ connection: HTTPConnection, in loop: some Loop) {
        releaseBody(connection)
    }

    /// Makes whatever progress the connection's phase and readiness allow.
    func drive(_ connection: HTTPConnection, in loop: some Loop) {
        switch connection.phase {
        case .writing:
            if connection.writable { flush(connection, in: loop) }
        case .idle, .head, .body:
            if connection.readable { readAvailable(connection, in: loop) }
        case .lingering:
            if connection.readable { discardAvailable(connection, in: loop) }
        case .processing:
            break
        }
    }

    /// Reads until the socket is drained, a request is dispatched, or the connection's read
    /// budget for this turn of the loop is spent (then it continues next turn, after the other
    /// connections and the timers have had theirs).
    private func readAvailable(_ connection: HTTPConnection, in loop: some Loop) {
        var budget = configuration.readBudgetPerTurn
        while loop.isOpen(connection), connection.isReading {
            guard budget > 0 else {
                loop.readNextTurn(connection)
                return
            }
            guard let count = loop.read(connection, into: loop.scratch) else { return }
            budget -= count
            connection.buffer.append(contentsOf: UnsafeRawBufferPointer(rebasing: loop.scratch[..<count]))
            // A short read drained the socket; with edge-triggered epoll, bytes arriving
            // later raise a new event, so no extra read is needed to see EAGAIN. Not so
            // for a FIN reported together with the data: keep reading until end of stream.
            if count < loop.scratch.count, !connection.peerClosed { connection.readable = false }
            parseBuffered(connection, in: loop)
            if !connection.readable { return }
        }
    }

    /// Reads and drops the peer's leftovers until it closes, a limit, or the linger deadline.
    private func discardAvailable(_ connection: HTTPConnection, in loop: some Loop) {
        while loop.isOpen(connection), let count = loop.read(connection, into: loop.scratch) {
            connection.discarded += count
            if connection.discarded > Self.maxLingerBytes { loop.close(connection) }
        }
    }

    static let maxLingerBytes = 1 << 20
    static let lingerNanoseconds: Int64 = 500_000_000

    /// Parses buffered bytes; dispatches a complete request or answers a malformed one.
    func parseBuffered(_ connection: HTTPConnection, in loop: some Loop) {
        guard !connection.buffer.isEmpty, connection.isReading,
              loop.isOpen(connection) else { return }
        let result = connection.buffer.withUnsafeBytes { connection.parser.parse($0) }
        let now = loop.now
        switch result {
        case .needMore(let awaitingContinue):
            if connection.phase == .idle {
                connection.phase = .head
                connection.requestDeadline = configuration.requestTimeout.map { now.adding($0) } ?? .max
                connection.deadline = min(now.adding(configuration.headTimeout), connection.requestDeadline)
            }
            if connection.phase == .head, connection.parser.hasHead {
                guard reserveBody(connection, in: loop) else {
                    refuse(connection, HTTPParseError(status: 503, reason: "too many request bodies in flight; retry later"),
                           now: now, in: loop)
                    return
                }
                connection.phase = .body
                connection.deadline = min(now.adding(configuration.bodyTimeout), connection.requestDeadline)
            }
            if awaitingContinue, !connection.sentContinue {
                connection.sentContinue = true
                let head = Array("HTTP/1.1 100 Continue\r\n\r\n".utf8)
                startWrite(connection, EncodedResponse(head: head, body: [], status: 100), isFinal: false, keepAlive: true, in: loop)
            }
        case .failure(let error):
            refuse(connection, error, now: now, in: loop)
        case .request(let parsed):
            releaseBody(connection)
            connection.buffer.removeFirst(parsed.consumed)
            connection.parser.reset()
            connection.sentContinue = false
            dispatch(connection, parsed, now: now, in: loop)
        }
    }

    /// Answers a request the server refuses (malformed, too large, too slow, no room) with
    /// `error.status`, counts it under the handler name `refused`, and closes after lingering.
    private func refuse(_ connection: HTTPConnection, _ error: HTTPParseError, now: Int64, in loop: some Loop) {
        connection.inFlight = HTTPConnection.InFlight(method: "-", path: "-", started: now)
        let response = WPHTTPResponse.text(error.reason + "\n", status: error.status)
        let encoded = HTTPResponseEncoder.encode(response, context: ResponseContext(keepAlive: false),
                                                 date: dates.now(), gzipMinimumBytes: nil)
        logger.debug("rejected request", ["status": .int(error.status), "reason": .string(error.reason),
                                          "remote": .string(connection.remoteAddress)])
        reportRefused(status: error.status)
        releaseBody(connection)
        connection.buffer.removeAll()
        startWrite(connection, encoded, isFinal: true, keepAlive: false, linger: true, in: loop)
    }

    func reportRefused(status: Int) {
        observer?.requestHandled(RequestEvent(handler: Self.refusedHandlerName, method: "-", status: status,
                                              durationSeconds: 0))
    }

    /// Books the body of the request whose head just completed against the global budget.
    private func reserveBody(_ connection: HTTPConnection, in loop: some Loop) -> Bool {
        let size: Int
        switch connection.parser.bodyFraming {
        case .length(let length): size = length
        case .chunked: size = configuration.maxBodyBytes
        case .some(.none), nil: size = 0
        }
        guard size > 0 else { return true }
        guard bufferedBodyBytes <= configuration.maxBufferedBodyBytes - size else { return false }
        bufferedBodyBytes += size
        connection.reservedBodyBytes = size
        return true
    }

    func releaseBody(_ connection: HTTPConnection) {
        bufferedBodyBytes -= connection.reservedBodyBytes
        connection.reservedBodyBytes = 0
    }

    private func dispatch(_ connection: HTTPConnection, _ parsed: ParsedRequest, now: Int64, in loop: some Loop) {
        var request = parsed.request
        request.remoteAddress = connection.remoteAddress
        connection.requestCount += 1
        let keepAlive = parsed.keepAlive && !connection.closeAfterResponse
            && connection.requestCount < configuration.maxRequestsPerConnection
        let context = ResponseContext(request: request, keepAlive: keepAlive)
        connection.phase = .processing
        connection.deadline = 0
        connection.inFlight = HTTPConnection.InFlight(method: request.method, path: request.path, started: now)
        let handler = self.handler
        let logger = self.logger
        let gzipMinimum = configuration.gzipMinimumBytes
        let id = connection.id
        // Only a handler serving a pre-rendered body runs on the loop; any other runs on the
        // global pool, so rendering (a registry of many series, say) never holds the loop.
        let onLoop = configuration.runsHandlersOnEventLoop && handler.servesPreRenderedBody(request)
        let date = dates.now()
        connection.task = Task(executorPreference: onLoop ? loop : nil) {
            let response: WPHTTPResponse
            do {
                response = try await handler.handle(request)
            } catch {
                logger.error("handler failed", ["method": .string(request.method), "path": .string(request.path),
                                                "error": .string(String(describing: error))])
                response = .text("internal server error\n", status: 500)
            }
            let encoded: EncodedResponse
            if onLoop && HTTPResponseEncoder.compresses(response, context: context, gzipMinimumBytes: gzipMinimum) {
                // A body still to compress is compressed off the loop.
                encoded = await withTaskExecutorPreference(globalConcurrentExecutor) {
                    HTTPResponseEncoder.encode(response, context: context, date: date, gzipMinimumBytes: gzipMinimum)
                }
            } else {
                encoded = HTTPResponseEncoder.encode(response, context: context, date: date, gzipMinimumBytes: gzipMinimum)
            }
            loop.complete(id, encoded)
        }
    }

    /// A handler finished: write its response unless shutdown closed the connection meanwhile.
    func responseReady(_ connection: HTTPConnection, _ response: EncodedResponse, in loop: some Loop) {
        guard connection.phase == .processing else { return }
        var response = response
        let announcedClose = Self.containsConnectionClose(response.head)
        if connection.closeAfterResponse, !announcedClose, response.head.count >= 2 {
            // Shutdown began while the handler ran: tell the client this is the last response.
            response.head.removeLast(2)
            response.head.append(contentsOf: "Connection: close\r\n\r\n".utf8)
        }
        let keepAlive = !connection.closeAfterResponse && !announcedClose
        startWrite(connection, response, isFinal: true, keepAlive: keepAlive, in: loop)
    }

    private func startWrite(_ connection: HTTPConnection, _ response: EncodedResponse, isFinal: Bool, keepAlive: Bool,
                            linger: Bool = false, in loop: some Loop) {
        connection.pending = HTTPConnection.PendingWrite(response: response, isFinal: isFinal, keepAlive: keepAlive,
                                                     linger: linger)
        connection.phase = .writing
        connection.deadline = loop.now.adding(configuration.writeTimeout)
        flush(connection, in: loop)
    }

    private func flush(_ connection: HTTPConnection, in loop: some Loop) {
        guard var pending = connection.pending else { return }
        while pending.written < pending.response.count {
            let result = pending.response.withUnwritten(from: pending.cursor, limit: connection.io.buffersPerWrite) {
                connection.io.write($0)
            }
            switch result {
            case .bytes(let count):
                pending.written += count
                pending.response.advance(&pending.cursor, by: count)
                connection.deadline = loop.now.adding(configuration.writeTimeout)
            case .wouldBlock:
                connection.writable = false
                connection.pending = pending
                return
            case .endOfStream, .failed:
                accessLog(connection, status: pending.response.status, bytes: pending.written, outcome: "write failed", now: loop.now)
                loop.close(connection)
                return
            }
        }
        connection.pending = nil
        finishWrite(connection, pending, in: loop)
    }

    private func finishWrite(_ connection: HTTPConnection, _ pending: HTTPConnection.PendingWrite, in loop: some Loop) {
        if !pending.isFinal {
            connection.phase = .body
            connection.deadline = min(loop.now.adding(configuration.bodyTimeout), connection.requestDeadline)
            parseBuffered(connection, in: loop)
            if loop.isOpen(connection) { drive(connection, in: loop) }
            return
        }
        accessLog(connection, status: pending.response.status, bytes: pending.response.count, outcome: nil, now: loop.now)
        guard pending.keepAlive, !connection.closeAfterResponse else {
            if pending.linger, !connection.closeAfterResponse {
                connection.io.shutdownWrite()
                connection.phase = .lingering
                connection.deadline = loop.now + min(Self.lingerNanoseconds, configuration.headTimeout.nanoseconds)
                connection.buffer = []
                drive(connection, in: loop)
            } else {
                loop.close(connection)
            }
            return
        }
        connection.phase = .idle
        connection.deadline = loop.now.adding(configuration.idleTimeout)
        // Pipelined requests may already be buffered.
        parseBuffered(connection, in: loop)
        if loop.isOpen(connection) { drive(connection, in: loop) }
    }

    private func accessLog(_ connection: HTTPConnection, status: Int, bytes: Int, outcome: String?, now: Int64) {
        guard logger.isEnabled(.debug), let inFlight = connection.inFlight else { return }
        var fields: LogFields = ["method": .string(inFlight.method), "path": .string(inFlight.path),
                                 "status": .int(status), "bytes": .int(bytes), "duration_ms": .milliseconds(.nanoseconds(now - inFlight.started)),
                                 "remote": .string(connection.remoteAddress)]
        if let outcome { fields["outcome"] = .string(outcome) }
        logger.debug("request", fields)
        connection.inFlight = nil
    }

    /// The phase's deadline passed: the connection closes; a request cut short gets `408`.
    func deadlinePassed(_ connection: HTTPConnection, now: Int64, in loop: some Loop) {
        switch connection.phase {
        case .idle, .processing, .lingering:
            loop.close(connection)
        case .head, .body:
            let phase = connection.phase == .head ? "head" : "body"
            logger.debug("request timeout", ["phase": .string(phase), "remote": .string(connection.remoteAddress)])
            let encoded = HTTPResponseEncoder.encode(.text("request timeout\n", status: 408),
                                                     context: ResponseContext(keepAlive: false),
                                                     date: dates.now(), gzipMinimumBytes: nil)
            reportRefused(status: 408)
            // Best effort, one attempt: the peer is slow by definition.
            _ = encoded.withUnwritten(from: 0) { connection.io.write($0) }
            loop.close(connection)
        case .writing:
            logger.debug("write timeout", ["remote": .string(connection.remoteAddress)])
            loop.close(connection)
        }
    }

    /// Whether an encoded head carries `Connection: close` (the handler asked to close).
    static func containsConnectionClose(_ head: [UInt8]) -> Bool {
        let needle = Array("\r\nConnection: close\r\n".utf8)
        guard head.count >= needle.count else { return false }
        return head.withUnsafeBytes { bytes in
            var index = bytes.count - needle.count
            while index >= 0 {
                if bytes[index] == 13, needle.indices.allSatisfy({ bytes[index + $0] == needle[$0] }) { return true }
                index -= 1
            }
            return false
        }
    }
}
