#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Synchronization
import WPCSystem
package import WPHTTPClient
package import WPLogging
package import WPRuntime

/// An MQTT 3.1.1 client that publishes, on a thread of its own: it connects (with a client id,
/// a user name and password, a keep-alive and a last will), announces itself with a birth
/// message, sends what it is given at QoS 0 or 1 (resending QoS 1 messages the broker did not
/// acknowledge after a reconnect), pings to keep the connection, and when the broker is away
/// connects again with backoff. What waits while it is away is bounded: a retained message
/// replaces the one queued for its topic, and past ``Configuration/queueLimit`` the oldest is
/// dropped (counted). Nobody else ever waits for it: ``publish(_:)`` only queues.
///
/// ```swift
/// let client = MQTTClient(configuration: .init(host: "127.0.0.1", port: 1883, clientID: "wpexporter"),
///                         logger: logger)
/// try client.start()
/// client.publish(.init(topic: "wpexporter/ups-1/state", payload: Array(#"{"load":42}"#.utf8), qos: 1, retain: true))
/// await client.stop()
/// ```
package final class MQTTClient: Sendable {
    /// Where and how it connects, and what it says on connecting and dying.
    package struct Configuration: Sendable {
        package var host: String
        package var port: Int
        package var clientID: String
        package var username: String?
        package var password: String?
        package var keepAlive: Duration = .seconds(30)
        /// How long a connection (resolve, connect, CONNACK) may take.
        package var connectTimeout: Duration = .seconds(10)
        /// Published by the broker when the connection is lost without a DISCONNECT.
        package var will: MQTTPacket.Message?
        /// Published at each connection, and replaced by the will's payload at a clean stop.
        package var birth: MQTTPacket.Message?
        /// Topic filters subscribed to at each connection (QoS 0).
        package var subscriptions: [String] = []
        /// The most messages waiting while the broker is away.
        package var queueLimit = 10_000
        /// The most QoS 1 messages sent and not yet acknowledged.
        package var inflightLimit = 100
        package var backoff = Backoff(initial: .seconds(1), maximum: .seconds(60))
        /// TLS to the broker (`mqtts://`); nil: plain TCP.
        package var tls: TLS?

        package init(host: String, port: Int, clientID: String, username: String? = nil, password: String? = nil) {
            self.host = host
            self.port = port
            self.clientID = clientID
            self.username = username
            self.password = password
        }
    }

    /// TLS to the broker: the certificate checked as `verification` says (the system's trust
    /// store by default) against the broker's host name, and a client certificate when given.
    /// The files are read again at each connection, so renewed ones are taken without a restart.
    package struct TLS: Sendable, Equatable {
        package var verification: HTTPClient.TLSVerification
        package var certificateFile: String?
        package var keyFile: String?

        package init(verification: HTTPClient.TLSVerification = .system, certificateFile: String? = nil, keyFile: String? = nil) {
            self.verification = verification
            self.certificateFile = certificateFile
            self.keyFile = keyFile
        }

        /// The context these settings make, or why they make none (a CA file, certificate or
        /// key that cannot be used; OpenSSL missing).
        package func context() throws(HTTPClientError) -> TLSClientContext {
            try TLSClientContext(verification: verification, certificateFile: certificateFile, keyFile: keyFile)
        }
    }

    /// What the client has done.
    package struct Status: Sendable, Equatable {
        package var connected = false
        /// Connections the broker accepted.
        package var connections = 0
        /// Connections that failed or were lost.
        package var failures = 0
        /// Messages written to the broker (QoS 1: acknowledged).
        package var sent = 0
        /// Messages dropped from a full queue.
        package var dropped = 0
        package var queued = 0
        package var lastError: String?
    }

    /// The messages waiting, oldest first: appending, taking the oldest and replacing a
    /// retained topic's waiting message each cost O(1) (a discovery of 10,000 entities is queued
    /// at once).
    struct Queue {
        private var slots: [MQTTPacket.Message?] = []
        private var head = 0
        /// Where each retained topic's waiting message is, as an index of `slots`.
        private var retained: [String: Int] = [:]
        private(set) var count = 0

        var isEmpty: Bool { count == 0 }
        var first: MQTTPacket.Message? {
            var index = head
            while index < slots.count {
                if let message = slots[index] { return message }
                index += 1
            }
            return nil
        }

        /// Appends `message`; a retained one takes the place of the one waiting for its topic.
        mutating func append(_ message: MQTTPacket.Message) {
            if message.retain, let index = retained[message.topic] {
                slots[index] = nil
                count -= 1
            }
            if message.retain { retained[message.topic] = slots.count }
            slots.append(message)
            count += 1
        }

        /// Takes the oldest.
        mutating func removeFirst() -> MQTTPacket.Message? {
            while head < slots.count {
                let slot = slots[head]
                slots[head] = nil
                head += 1
                if let message = slot {
                    count -= 1
                    if message.retain, retained[message.topic] == head - 1 { retained[message.topic] = nil }
                    compact()
                    return message
                }
            }
            compact()
            return nil
        }

        /// Drops the taken slots once they are most of the array.
        private mutating func compact() {
            guard head > 1_024, head * 2 > slots.count else {
                if head == slots.count { slots.removeAll(keepingCapacity: true); head = 0; retained = [:] }
                return
            }
            slots.removeFirst(head)
            retained = retained.mapValues { $0 - head }
            head = 0
        }
    }

    private struct State {
        var queue = Queue()
        var status = Status()
        var stopping = false
        var cancellation: ExchangeCancellation?
        var finished = false
        var waiters: [CheckedContinuation<Void, Never>] = []
    }

    package let configuration: Configuration
    private let logger: WPLogger
    private let state = Mutex(State())
    private let wake: Int32
    private let onConnect: @Sendable () -> Void
    private let onMessage: @Sendable (MQTTPacket.Message) -> Void
    private var authority: String {
        configuration.host.contains(":") ? "[\(configuration.host)]:\(configuration.port)" : "\(configuration.host):\(configuration.port)"
    }

    /// A client of `configuration`; nothing connects before ``start()``.
    ///
    /// - Parameters:
    ///   - onConnect: called on the client's thread after each accepted connection (after the
    ///     birth message is queued): the moment to queue what a fresh broker session needs.
    ///   - onMessage: called on the client's thread with each message of a subscription.
    package init(configuration: Configuration, logger: WPLogger, onConnect: @escaping @Sendable () -> Void = {},
                 onMessage: @escaping @Sendable (MQTTPacket.Message) -> Void = { _ in }) {
        self.configuration = configuration
        self.logger = logger
        self.onConnect = onConnect
        self.onMessage = onMessage
        wake = cs_eventfd()
    }

    deinit {
        if wake >= 0 { _ = close(wake) }
    }

    /// The client's status now.
    package var status: Status {
        state.withLock { state in
            var status = state.status
            status.queued = state.queue.count
            return status
        }
    }

    /// Starts the client's thread, which connects and keeps connecting until ``stop()``.
    package func start() throws(ThreadStartError) {
        try NamedThread.start(name: "mqtt-client") { [self] in
            run()
            let waiters = state.withLock { state in
                state.finished = true
                defer { state.waiters = [] }
                return state.waiters
            }
            for waiter in waiters { waiter.resume() }
        }
    }

    /// Queues `message` for the broker; returns at once.
    package func publish(_ message: MQTTPacket.Message) {
        publish([message])
    }

    /// Queues `messages` in order; returns at once.
    package func publish(_ messages: [MQTTPacket.Message]) {
        guard !messages.isEmpty else { return }
        let dropped = state.withLock { state -> Int in
            var dropped = 0
            for message in messages {
                // A retained state replaces the one waiting for its topic: the broker keeps only the last.
                state.queue.append(message)
                while state.queue.count > configuration.queueLimit, state.queue.removeFirst() != nil {
                    dropped += 1
                }
            }
            state.status.dropped += dropped
            return dropped
        }
        if dropped > 0 {
            logger.warn("MQTT messages dropped: the queue is full while the broker is away",
                        ["dropped": .int(dropped), "queue_limit": .int(configuration.queueLimit)])
        }
        signal()
    }

    /// Stops the client: connected, it publishes the will's payload on the birth topic, sends
    /// what is queued within two seconds and disconnects; then its thread ends. Returns once it
    /// has (at once when it never started).
    package func stop() async {
        let (cancellation, finished) = state.withLock { state in
            state.stopping = true
            return (state.cancellation, state.finished)
        }
        signal()
        // A connect or a read in progress is cut short.
        if !(state.withLock { $0.status.connected }) { cancellation?.cancel() }
        guard !finished else { return }
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let now = state.withLock { state -> Bool in
                if state.finished { return true }
                state.waiters.append(continuation)
                return false
            }
            if now { continuation.resume() }
        }
    }

    private func signal() {
        if wake >= 0 { cs_eventfd_signal(wake) }
    }

    private var stopping: Bool { state.withLock { $0.stopping } }

    // MARK: The client's thread

    /// Connects, serves the connection until it is lost, and again after the backoff, until
    /// stopped.
    private func run() {
        var failures = 0
        var inflight: [UInt16: MQTTPacket.Message] = [:]
        while !stopping {
            let cancellation = ExchangeCancellation()
            state.withLock { $0.cancellation = cancellation }
            do throws(MQTTError) {
                let socket = try connect(cancellation)
                defer { socket.close(detachingFrom: cancellation) }
                failures = 0
                try serve(socket, cancellation: cancellation, inflight: &inflight)
                return
            } catch {
                failures += 1
                let wasConnected = state.withLock { state -> Bool in
                    defer {
                        state.status.connected = false
                        state.status.failures += 1
                        state.status.lastError = error.description
                    }
                    return state.status.connected
                }
                if stopping { return }
                let delay = configuration.backoff.delay(afterFailures: failures)
                if wasConnected || failures == 1 {
                    logger.warn("no connection to the MQTT broker; connecting again with backoff",
                                ["broker": .string(authority), "error": .string(error.description), "retry_in_s": .seconds(delay)])
                }
                waitForWake(until: Deadline(after: delay))
            }
        }
    }

    /// A connection the broker accepted: TCP connected, TLS shaken hands when configured,
    /// CONNECT sent, CONNACK read.
    private func connect(_ cancellation: ExchangeCancellation) throws(MQTTError) -> Link {
        let deadline = Deadline(after: configuration.connectTimeout)
        let socket: Link
        do throws(HTTPClientError) {
            let context = try configuration.tls?.context()
            let plain = try ClientSocket.connect(host: configuration.host, port: configuration.port, deadline: deadline,
                                                 cancellation: cancellation)
            if let context {
                socket = .tls(try TLSClientStream(socket: plain, context: context, serverName: configuration.host, deadline: deadline,
                                                  cancellation: cancellation, authority: authority))
            } else {
                socket = .plain(plain)
            }
        } catch {
            throw .network(error.detail)
        }
        do throws(MQTTError) {
            let seconds = UInt16(clamping: configuration.keepAlive.components.seconds)
            let connect = MQTTPacket.Connect(clientID: configuration.clientID, keepAlive: seconds, will: configuration.will,
                                             username: configuration.username, password: configuration.password.map { Array($0.utf8) })
            try write(MQTTPacket.connect(connect).encoded, to: socket, deadline: deadline, cancellation: cancellation)
            var buffer: [UInt8] = []
            while true {
                guard let (packet, used) = try MQTTPacket.decode(buffer[...]) else {
                    try read(socket, into: &buffer, until: deadline, doing: "waiting for the broker's CONNACK")
                    continue
                }
                buffer.removeFirst(used)
                guard case .connack(_, let code) = packet else {
                    throw .protocolViolation("a packet before the CONNACK")
                }
                guard code == 0 else { throw .refused(code) }
                return socket
            }
        } catch {
            socket.close(detachingFrom: cancellation)
            throw error
        }
    }

    /// Sends and reads on an accepted connection until it is lost (throws) or the client stops
    /// (returns after a clean disconnect).
    private func serve(_ socket: Link, cancellation: ExchangeCancellation,
                       inflight: inout [UInt16: MQTTPacket.Message]) throws(MQTTError) {
        state.withLock { state in
            state.status.connected = true
            state.status.connections += 1
            state.status.lastError = nil
        }
        logger.info("connected to the MQTT broker", ["broker": .string(authority), "client_id": .string(configuration.clientID)])
        var lastSent = ContinuousClock.now
        var pingSent: ContinuousClock.Instant?
        var nextID: UInt16 = 1
        let keepAlive = max(configuration.keepAlive, .seconds(1))
        func send(_ packet: MQTTPacket) throws(MQTTError) {
            try write(packet.encoded, to: socket, deadline: Deadline(after: keepAlive), cancellation: cancellation)
            lastSent = .now
        }
        if !configuration.subscriptions.isEmpty {
            try send(.subscribe(packetID: 0xFFFF, topics: configuration.subscriptions.map { ($0, 0) }))
        }
        // What the broker did not acknowledge before the connection was lost goes again, marked.
        for (id, message) in inflight.sorted(by: { $0.key < $1.key }) {
            try send(.publish(message, packetID: id, duplicate: true))
        }
        if let birth = configuration.birth { publish(birth) }
        onConnect()
        var buffer: [UInt8] = []
        var stopDeadline: Deadline?
        while true {
            // Send what is queued, QoS 1 within the in-flight limit.
            while true {
                if stopDeadline == nil, stopping {
                    stopDeadline = Deadline(after: .seconds(2))
                    if let birth = configuration.birth, let will = configuration.will {
                        publish(.init(topic: birth.topic, payload: will.payload, qos: birth.qos, retain: birth.retain))
                    }
                }
                let next: MQTTPacket.Message? = state.withLock { state in
                    guard let first = state.queue.first, first.qos == 0 || inflight.count < configuration.inflightLimit else { return nil }
                    return state.queue.removeFirst()
                }
                guard let message = next else { break }
                if message.qos == 0 {
                    try send(.publish(message, packetID: nil, duplicate: false))
                    state.withLock { $0.status.sent += 1 }
                } else {
                    while inflight[nextID] != nil || nextID == 0 || nextID == 0xFFFF { nextID &+= 1 }
                    inflight[nextID] = message
                    try send(.publish(message, packetID: nextID, duplicate: false))
                    nextID &+= 1
                }
            }
            if let stopDeadline {
                let drained = state.withLock { $0.queue.isEmpty } && inflight.isEmpty
                if drained || stopDeadline.remainingMilliseconds == 0 {
                    try? send(.disconnect)
                    state.withLock { $0.status.connected = false }
                    return
                }
            }
            // Keep-alive: a ping after a keep-alive without sending; no answer within one more is a lost connection.
            let now = ContinuousClock.now
            if let pingSent, pingSent.duration(to: now) >= keepAlive {
                throw .network("the MQTT broker at \(authority) did not answer a ping within \(keepAlive.components.seconds) s")
            }
            if pingSent == nil, lastSent.duration(to: now) >= keepAlive {
                try send(.pingreq)
                pingSent = .now
            }
            let pingDue = (pingSent ?? lastSent).advanced(by: keepAlive)
            var until = Deadline(at: pingDue)
            if let stopDeadline, stopDeadline.end < until.end { until = stopDeadline }
            let readable = waitReadable(socket, until: until)
            guard readable else { continue }
            // What TLS reads may be no message (a session ticket): nothing to decode then.
            try read(socket, into: &buffer, until: nil, doing: "reading from the broker")
            while let (packet, used) = try MQTTPacket.decode(buffer[...]) {
                buffer.removeFirst(used)
                switch packet {
                case .puback(let id):
                    if inflight.removeValue(forKey: id) != nil { state.withLock { $0.status.sent += 1 } }
                case .pingresp:
                    pingSent = nil
                case .publish(let message, let id, _):
                    if message.qos == 1, let id { try send(.puback(packetID: id)) }
                    onMessage(message)
                case .suback(_, let codes):
                    if codes.contains(0x80) {
                        logger.warn("the MQTT broker refused a subscription", ["broker": .string(authority)])
                    }
                default:
                    throw .protocolViolation("an unexpected packet on an established connection")
                }
            }
        }
    }

    /// Writes `bytes`, within `deadline`.
    private func write(_ bytes: [UInt8], to socket: Link, deadline: Deadline,
                       cancellation: ExchangeCancellation) throws(MQTTError) {
        do throws(HTTPClientError) {
            switch socket {
            case .plain(let plain): try plain.write(bytes, deadline: deadline, cancellation: cancellation, authority: authority)
            case .tls(let stream): try stream.write(bytes, deadline: deadline, cancellation: cancellation, authority: authority)
            }
        } catch {
            throw .network("sending to the MQTT broker at \(authority) failed: \(error.detail)")
        }
    }

    /// Reads all the connection has into `buffer`, waiting until `deadline` for something (nil:
    /// not waiting, perhaps reading nothing); the broker closing the connection is an error.
    private func read(_ socket: Link, into buffer: inout [UInt8], until deadline: Deadline?,
                      doing activity: String) throws(MQTTError) {
        var chunk = [UInt8](repeating: 0, count: 16_384)
        var got = false
        while true {
            let outcome: Result<Int?, HTTPClientError> = chunk.withUnsafeMutableBytes { raw in
                do throws(HTTPClientError) {
                    return .success(try socket.readAvailable(into: raw, authority: authority))
                } catch {
                    return .failure(error)
                }
            }
            let received: Int?
            switch outcome {
            case .success(let count): received = count
            case .failure(let error): throw .network("\(activity) at \(authority) failed: \(error.detail)")
            }
            if let received, received > 0 {
                buffer += chunk.prefix(received)
                if buffer.count > 1 << 21 { throw .protocolViolation("more than 2 MiB unread") }
                got = true
                continue // TLS may hold more decrypted than one chunk: read until nothing is left
            }
            if received == 0 {
                // What came before the end is decoded first (a refused login's CONNACK, then the close).
                if got { return }
                throw .network("the MQTT broker at \(authority) closed the connection \(activity)")
            }
            guard !got, let deadline else { return }
            guard deadline.remainingMilliseconds > 0, waitReadable(socket, until: deadline) else {
                throw .network("timed out \(activity) at \(authority)")
            }
        }
    }

    /// Waits until the connection can be read (true) or `deadline` passes or the client is woken
    /// (false).
    private func waitReadable(_ socket: Link, until deadline: Deadline) -> Bool {
        var entries = [pollfd(fd: socket.descriptor, events: socket.readWaitsFor, revents: 0),
                       pollfd(fd: wake, events: Int16(POLLIN), revents: 0)]
        let ready = poll(&entries, 2, deadline.remainingMilliseconds)
        if entries[1].revents != 0 { cs_eventfd_drain(wake) }
        return ready > 0 && entries[0].revents != 0
    }

    /// Waits until `deadline` or a stop (a message queued meanwhile does not cut the backoff).
    private func waitForWake(until deadline: Deadline) {
        while !stopping, deadline.remainingMilliseconds > 0 {
            var entry = pollfd(fd: wake, events: Int16(POLLIN), revents: 0)
            if poll(&entry, 1, deadline.remainingMilliseconds) > 0 { cs_eventfd_drain(wake) }
        }
    }
}

/// The connection to the broker: TCP, or TLS over it.
private enum Link {
    case plain(ClientSocket)
    case tls(TLSClientStream)

    var descriptor: Int32 {
        switch self {
        case .plain(let socket): socket.descriptor
        case .tls(let stream): stream.socket.descriptor
        }
    }

    /// What the socket must be ready for before reading can go on (TLS may first need to write).
    var readWaitsFor: Int16 {
        if case .tls(let stream) = self { return stream.readWaitsFor }
        return Int16(POLLIN)
    }

    /// The bytes available now: a count (0 at the end of the stream), or nil when none yet.
    func readAvailable(into buffer: UnsafeMutableRawBufferPointer, authority: String) throws(HTTPClientError) -> Int? {
        switch self {
        case .tls(let stream):
            return try stream.readAvailable(into: buffer, authority: authority)
        case .plain(let socket):
            return try socket.readAvailable(into: buffer, authority: authority)
        }
    }

    func close(detachingFrom cancellation: ExchangeCancellation) {
        switch self {
        case .plain(let socket): socket.close(detachingFrom: cancellation)
        case .tls(let stream): stream.close(detachingFrom: cancellation)
        }
    }
}
