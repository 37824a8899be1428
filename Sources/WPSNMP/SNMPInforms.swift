import Synchronization
import WPServer

/// What sends informs for an ``SNMPNotificationSender``: ``SNMPInforms``.
public protocol SNMPInformDelivery: Sendable {
    /// Sends an InformRequest and looks after its acknowledgement; `false` when refused.
    func inform(_ message: [UInt8], requestID: Int32, host: String, port: Int) -> Bool
}

/// Acknowledged notifications: SNMPv2c InformRequests (RFC 3416 §4.2.7). Served by a
/// `DatagramServer` of its own (an ephemeral port, so the receivers' Responses come back to
/// it and not to the agent): each inform is sent through `transport` and resent every
/// ``Configuration/timeout`` until a Response with its request id comes from its receiver's
/// address, at most ``Configuration/retries`` times; then it is given up and counted. Nothing
/// waits for an acknowledgement: the resends run as tasks of their own, at most
/// ``Configuration/maxPending`` informs at once (more are refused and counted).
///
/// ```swift
/// let informs = SNMPInforms(configuration: .init(), clock: ContinuousClock())
/// let socket = DatagramServer(configuration: .init(host: "0.0.0.0", port: 0), protocol: informs, logger: logger)
/// informs.transport = { bytes, host, port in socket.send(bytes, to: host, port: port) }
/// ```
public final class SNMPInforms<C: Clock>: DatagramProtocol, SNMPInformDelivery where C.Duration == Duration {
    public struct Configuration: Sendable {
        /// How long to wait for an acknowledgement before resending.
        public var timeout: Duration
        /// Resends after the first send.
        public var retries: Int
        /// Informs awaiting acknowledgement at once.
        public var maxPending: Int

        public init(timeout: Duration = .seconds(5), retries: Int = 2, maxPending: Int = 256) {
            self.timeout = timeout
            self.retries = retries
            self.maxPending = maxPending
        }
    }

    public struct Statistics: Sendable, Equatable {
        /// Datagrams handed to the transport, resends included.
        public var sent = 0
        /// Informs acknowledged by their receiver.
        public var acknowledged = 0
        /// Resends.
        public var resent = 0
        /// Informs given up after every resend, or that could not be handed over.
        public var failed = 0
        /// Informs refused because ``Configuration/maxPending`` were awaiting acknowledgement.
        public var refused = 0
        /// Datagrams received that acknowledge nothing pending (late, unknown, or malformed).
        public var unmatched = 0

        public init() {}
    }

    private struct Pending {
        var host: String
        var task: Task<Void, Never>?
    }

    public let configuration: Configuration
    private let clock: C
    private let state = Mutex<(pending: [Int32: Pending], statistics: Statistics)>(([:], Statistics()))
    /// Who waits for the statistics to reach a condition (``waitUntil(_:)``).
    private let watchers = Mutex<[(condition: @Sendable (Statistics) -> Bool, continuation: CheckedContinuation<Void, Never>)]>([])
    private let sendDatagram = Mutex<(@Sendable ([UInt8], String, Int) -> Bool)?>(nil)

    public init(configuration: Configuration = Configuration(), clock: C) {
        self.configuration = configuration
        self.clock = clock
    }

    /// Sends one datagram to a receiver (the inform socket's `send`); set before informing.
    public var transport: (@Sendable (_ datagram: [UInt8], _ host: String, _ port: Int) -> Bool)? {
        get { sendDatagram.withLock { $0 } }
        set { sendDatagram.withLock { $0 = newValue } }
    }

    public var statistics: Statistics { state.withLock { $0.statistics } }

    /// Informs awaiting acknowledgement now.
    public var pendingCount: Int { state.withLock { $0.pending.count } }

    /// Sends `message` (an InformRequest with request id `requestID`) to `host`:`port` and
    /// resends it until acknowledged or given up. Returns at once; `false` when refused or not
    /// handed over.
    @discardableResult
    public func inform(_ message: [UInt8], requestID: Int32, host: String, port: Int) -> Bool {
        let admitted = state.withLock { state in
            guard state.pending.count < configuration.maxPending, state.pending[requestID] == nil else {
                state.statistics.refused += 1
                return false
            }
            state.pending[requestID] = Pending(host: host, task: nil)
            return true
        }
        guard admitted else { return false }
        guard deliver(message, host: host, port: port) else {
            state.withLock { state in
                state.pending.removeValue(forKey: requestID)
                state.statistics.failed += 1
            }
            return false
        }
        let (clock, timeout, retries) = (clock, configuration.timeout, configuration.retries)
        let task = Task { [weak self] in
            for attempt in 0...retries {
                do { try await clock.sleep(for: timeout) } catch { return }   // acknowledged: cancelled
                guard let self else { return }
                let stillPending = self.state.withLock { $0.pending[requestID] != nil }
                guard stillPending else { return }
                if attempt == retries { break }
                self.state.withLock { $0.statistics.resent += 1 }
                _ = self.deliver(message, host: host, port: port)
            }
            self?.state.withLock { state in
                if state.pending.removeValue(forKey: requestID) != nil { state.statistics.failed += 1 }
            }
            self?.notifyWatchers()
        }
        let known = state.withLock { state in
            guard state.pending[requestID] != nil else { return false }
            state.pending[requestID]?.task = task
            return true
        }
        if !known { task.cancel() }   // acknowledged before the task was recorded
        return true
    }

    /// A Response from a receiver: acknowledges the inform with its request id when it comes
    /// from that inform's receiver address. Never answers.
    public func handle(_ datagram: [UInt8], from peer: String) async -> [UInt8]? {
        guard let message = try? SNMPMessage(decoding: datagram), message.pdu.type == BERTag.response else {
            state.withLock { $0.statistics.unmatched += 1 }
            return nil
        }
        let task: Task<Void, Never>?? = state.withLock { state in
            guard let pending = state.pending[message.pdu.requestID], Self.host(of: peer) == pending.host else {
                state.statistics.unmatched += 1
                return nil
            }
            state.pending.removeValue(forKey: message.pdu.requestID)
            state.statistics.acknowledged += 1
            return .some(pending.task)
        }
        if case .some(let running) = task { running?.cancel() }
        notifyWatchers()
        return nil
    }

    /// Returns once `condition` holds for the statistics (tests, and a shutdown that lets the
    /// informs in flight settle under a deadline of its own).
    public func waitUntil(_ condition: @escaping @Sendable (Statistics) -> Bool) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let now = statistics
            if condition(now) { continuation.resume(); return }
            watchers.withLock { $0.append((condition, continuation)) }
            notifyWatchers()
        }
    }

    private func notifyWatchers() {
        let now = statistics
        let ready = watchers.withLock { watchers in
            let ready = watchers.filter { $0.condition(now) }
            watchers.removeAll { $0.condition(now) }
            return ready
        }
        for watcher in ready { watcher.continuation.resume() }
    }

    private func deliver(_ message: [UInt8], host: String, port: Int) -> Bool {
        let sent = transport?(message, host, port) ?? false
        if sent { state.withLock { $0.statistics.sent += 1 } }
        notifyWatchers()
        return sent
    }

    /// `ip` of `ip:port`, `ip6` of `[ip6]:port`.
    static func host(of peer: String) -> String {
        if peer.hasPrefix("["), let close = peer.firstIndex(of: "]") { return String(peer[peer.index(after: peer.startIndex)..<close]) }
        guard let colon = peer.lastIndex(of: ":") else { return peer }
        return String(peer[..<colon])
    }
}
