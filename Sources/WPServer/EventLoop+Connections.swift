import WPCSystem
import Glibc
import Synchronization
import WPLogging

/// Per-connection work on the loop thread: read, parse, dispatch, write, time out.
extension EventLoop {
    /// Makes whatever progress the connection's phase and readiness allow.
    func drive(_ connection: Connection) {
        switch connection.phase {
        case .writing:
            if connection.writable { flush(connection) }
        case .idle, .head, .body:
            if connection.readable { readAvailable(connection) }
        case .lingering:
            if connection.readable { discardAvailable(connection) }
        case .processing:
            break
        }
    }

    /// Reads until the socket is drained, a request is dispatched, or the connection's read
    /// budget for this turn of the loop is spent (then it continues next turn, after the other
    /// connections and the timers have had theirs).
    private func readAvailable(_ connection: Connection) {
        var budget = configuration.readBudgetPerTurn
        while connections[connection.id] != nil, connection.isReading {
            guard budget > 0 else {
                readNextTurn(connection)
                return
            }
            switch connection.io.read(into: scratch) {
            case .bytes(let count):
                budget -= count
                connection.buffer.append(contentsOf: UnsafeRawBufferPointer(rebasing: scratch[..<count]))
                // A short read drained the socket; with edge-triggered epoll, bytes arriving
                // later raise a new event, so no extra read is needed to see EAGAIN. Not so
                // for a FIN reported together with the data: keep reading until end of stream.
                if count < scratch.count, !connection.peerClosed { connection.readable = false }
                parseBuffered(connection)
                if !connection.readable { return }
            case .wouldBlock:
                connection.readable = false
                return
            case .endOfStream, .failed:
                close(connection)
                return
            }
        }
    }

    /// Queues a connection whose socket may still hold bytes for the next turn of the loop.
    private func readNextTurn(_ connection: Connection) {
        guard !connection.readQueued else { return }
        connection.readQueued = true
        readAgain.append(connection.id)
    }

    /// Gives every connection queued by ``readNextTurn(_:)`` its next turn.
    func serveQueuedReads() {
        let queued = readAgain
        readAgain.removeAll(keepingCapacity: true)
        for id in queued {
            guard let connection = connections[id] else { continue }
            connection.readQueued = false
            drive(connection)
        }
    }

    /// Reads and drops the peer's leftovers until it closes, a limit, or the linger deadline.
    private func discardAvailable(_ connection: Connection) {
        while connections[connection.id] != nil {
            switch connection.io.read(into: scratch) {
            case .bytes(let count):
                connection.discarded += count
                if connection.discarded > Self.maxLingerBytes { close(connection) }
            case .wouldBlock:
                connection.readable = false
                return
            case .endOfStream, .failed:
                close(connection)
                return
            }
        }
    }

    static let maxLingerBytes = 1 << 20
    static let lingerNanoseconds: Int64 = 500_000_000

    /// Parses buffered bytes; dispatches a complete request or answers a malformed one.
    func parseBuffered(_ connection: Connection) {
        guard !connection.buffer.isEmpty, connection.isReading,
              connections[connection.id] != nil else { return }
        let result = connection.buffer.withUnsafeBytes { connection.parser.parse($0) }
        let now = cs_monotonic_ns()
        switch result {
        case .needMore(let awaitingContinue):
            if connection.phase == .idle {
                connection.phase = .head
                connection.requestDeadline = configuration.requestTimeout.map { now.adding($0) } ?? .max
                connection.deadline = min(now.adding(configuration.headTimeout), connection.requestDeadline)
            }
            if connection.phase == .head, connection.parser.hasHead {
                guard reserveBody(connection) else {
                    refuse(connection, HTTPParseError(status: 503, reason: "too many request bodies in flight; retry later"),
                           now: now)
                    return
                }
                connection.phase = .body
                connection.deadline = min(now.adding(configuration.bodyTimeout), connection.requestDeadline)
            }
            if awaitingContinue, !connection.sentContinue {
                connection.sentContinue = true
                let head = Array("HTTP/1.1 100 Continue\r\n\r\n".utf8)
                startWrite(connection, EncodedResponse(head: head, body: [], status: 100), isFinal: false, keepAlive: true)
            }
        case .failure(let error):
            refuse(connection, error, now: now)
        case .request(let parsed):
            releaseBody(connection)
            connection.buffer.removeFirst(parsed.consumed)
            connection.parser.reset()
            connection.sentContinue = false
            dispatch(connection, parsed, now: now)
        }
    }

    /// Answers a request the server refuses (malformed, too large, too slow, no room) with
    /// `error.status`, counts it under the handler name `refused`, and closes after lingering.
    private func refuse(_ connection: Connection, _ error: HTTPParseError, now: Int64) {
        connection.inFlight = Connection.InFlight(method: "-", path: "-", started: now)
        let response = HTTPResponse.text(error.reason + "\n", status: error.status)
        let encoded = HTTPResponseEncoder.encode(response, context: ResponseContext(keepAlive: false),
                                                 date: dates.now(), gzipMinimumBytes: nil)
        logger.debug("rejected request", ["status": .int(error.status), "reason": .string(error.reason),
                                          "remote": .string(connection.remoteAddress)])
        reportRefused(status: error.status)
        releaseBody(connection)
        connection.buffer.removeAll()
        startWrite(connection, encoded, isFinal: true, keepAlive: false, linger: true)
    }

    func reportRefused(status: Int) {
        observer?.requestHandled(RequestEvent(handler: Self.refusedHandlerName, method: "-", status: status,
                                              durationSeconds: 0))
    }

    /// Books the body of the request whose head just completed against the global budget.
    private func reserveBody(_ connection: Connection) -> Bool {
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

    func releaseBody(_ connection: Connection) {
        bufferedBodyBytes -= connection.reservedBodyBytes
        connection.reservedBodyBytes = 0
    }

    private func dispatch(_ connection: Connection, _ parsed: ParsedRequest, now: Int64) {
        var request = parsed.request
        request.remoteAddress = connection.remoteAddress
        connection.requestCount += 1
        let keepAlive = parsed.keepAlive && !connection.closeAfterResponse
            && connection.requestCount < configuration.maxRequestsPerConnection
        let context = ResponseContext(request: request, keepAlive: keepAlive)
        connection.phase = .processing
        connection.deadline = 0
        connection.inFlight = Connection.InFlight(method: request.method, path: request.path, started: now)
        let handler = self.handler
        let logger = self.logger
        let gzipMinimum = configuration.gzipMinimumBytes
        let id = connection.id
        // Only a handler serving a pre-rendered body runs on the loop; any other runs on the
        // global pool, so rendering (a registry of many series, say) never holds the loop.
        let onLoop = configuration.runsHandlersOnEventLoop && handler.servesPreRenderedBody(request)
        let date = dates.now()
        connection.task = Task(executorPreference: onLoop ? self : nil) { [self] in
            let response: HTTPResponse
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
            complete(id, encoded)
        }
    }

    /// A handler finished: write its response unless shutdown closed the connection meanwhile.
    func responseReady(_ connection: Connection, _ response: EncodedResponse) {
        guard connection.phase == .processing else { return }
        var response = response
        let announcedClose = Self.containsConnectionClose(response.head)
        if connection.closeAfterResponse, !announcedClose, response.head.count >= 2 {
            // Shutdown began while the handler ran: tell the client this is the last response.
            response.head.removeLast(2)
            response.head.append(contentsOf: "Connection: close\r\n\r\n".utf8)
        }
        let keepAlive = !connection.closeAfterResponse && !announcedClose
        startWrite(connection, response, isFinal: true, keepAlive: keepAlive)
    }

    private func startWrite(_ connection: Connection, _ response: EncodedResponse, isFinal: Bool, keepAlive: Bool,
                            linger: Bool = false) {
        connection.pending = Connection.PendingWrite(response: response, isFinal: isFinal, keepAlive: keepAlive,
                                                     linger: linger)
        connection.phase = .writing
        connection.deadline = cs_monotonic_ns().adding(configuration.writeTimeout)
        flush(connection)
    }

    private func flush(_ connection: Connection) {
        guard var pending = connection.pending else { return }
        while pending.written < pending.response.count {
            let result = pending.response.withUnwritten(from: pending.cursor, limit: connection.io.buffersPerWrite) {
                connection.io.write($0)
            }
            switch result {
            case .bytes(let count):
                pending.written += count
                pending.response.advance(&pending.cursor, by: count)
                connection.deadline = cs_monotonic_ns().adding(configuration.writeTimeout)
            case .wouldBlock:
                connection.writable = false
                connection.pending = pending
                return
            case .endOfStream, .failed:
                accessLog(connection, status: pending.response.status, bytes: pending.written, outcome: "write failed")
                close(connection)
                return
            }
        }
        connection.pending = nil
        finishWrite(connection, pending)
    }

    private func finishWrite(_ connection: Connection, _ pending: Connection.PendingWrite) {
        if !pending.isFinal {
            connection.phase = .body
            connection.deadline = min(cs_monotonic_ns().adding(configuration.bodyTimeout), connection.requestDeadline)
            parseBuffered(connection)
            if connections[connection.id] != nil { drive(connection) }
            return
        }
        accessLog(connection, status: pending.response.status, bytes: pending.response.count, outcome: nil)
        guard pending.keepAlive, !connection.closeAfterResponse else {
            if pending.linger, !connection.closeAfterResponse {
                connection.io.shutdownWrite()
                connection.phase = .lingering
                connection.deadline = cs_monotonic_ns() + min(Self.lingerNanoseconds, configuration.headTimeout.nanoseconds)
                connection.buffer = []
                drive(connection)
            } else {
                close(connection)
            }
            return
        }
        connection.phase = .idle
        connection.deadline = cs_monotonic_ns().adding(configuration.idleTimeout)
        // Pipelined requests may already be buffered.
        parseBuffered(connection)
        if connections[connection.id] != nil { drive(connection) }
    }

    private func accessLog(_ connection: Connection, status: Int, bytes: Int, outcome: String?) {
        guard logger.isEnabled(.debug), let inFlight = connection.inFlight else { return }
        var fields: LogFields = ["method": .string(inFlight.method), "path": .string(inFlight.path),
                                 "status": .int(status), "bytes": .int(bytes), "duration_ms": .milliseconds(.nanoseconds(cs_monotonic_ns() - inFlight.started)),
                                 "remote": .string(connection.remoteAddress)]
        if let outcome { fields["outcome"] = .string(outcome) }
        logger.debug("request", fields)
        connection.inFlight = nil
    }

    /// Closes connections whose phase deadline passed; a request cut short gets `408`.
    func scanTimeouts(now: Int64) {
        for connection in Array(connections.values) where connection.deadline != 0 && now >= connection.deadline {
            switch connection.phase {
            case .idle, .processing, .lingering:
                close(connection)
            case .head, .body:
                let phase = connection.phase == .head ? "head" : "body"
                logger.debug("request timeout", ["phase": .string(phase), "remote": .string(connection.remoteAddress)])
                let encoded = HTTPResponseEncoder.encode(.text("request timeout\n", status: 408),
                                                         context: ResponseContext(keepAlive: false),
                                                         date: dates.now(), gzipMinimumBytes: nil)
                reportRefused(status: 408)
                // Best effort, one attempt: the peer is slow by definition.
                _ = encoded.withUnwritten(from: 0) { connection.io.write($0) }
                close(connection)
            case .writing:
                logger.debug("write timeout", ["remote": .string(connection.remoteAddress)])
                close(connection)
            }
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
