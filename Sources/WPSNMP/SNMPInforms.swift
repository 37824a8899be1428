import Synchronization
import WPServer

/// What sends informs for an ``SNMPNotificationSender``: ``SNMPInforms``.
package protocol SNMPInformDelivery: Sendable {
    /// Sends an InformRequest and looks after its acknowledgement; `false` when refused.
    func inform(_ message: [UInt8], requestID: Int32, host: String, port: Int) -> Bool
    /// Sends `pdu` (an InformRequest) as SNMPv3 from `credentials` at its level, discovering the
    /// receiver's engine first, and looks after its acknowledgement; `false` when refused.
    func inform(_ pdu: PDU, contextName: String, credentials: USMCredentials, host: String, port: Int) -> Bool
}

/// Acknowledged notifications: SNMPv2c and SNMPv3 InformRequests (RFC 3416 §4.2.7). Served by a
/// `DatagramServer` of its own (an ephemeral port, so the receivers' Responses come back to
/// it and not to the agent): each inform is sent through `transport` and resent every
/// ``Configuration/timeout`` until a Response with its request id comes from its receiver's
/// address, at most ``Configuration/retries`` times; then it is given up and counted. Nothing
/// waits for an acknowledgement: the resends run as tasks of their own, at most
/// ``Configuration/maxPending`` informs at once (more are refused and counted).
///
/// An SNMPv3 inform's receiver is the authoritative engine (RFC 3414 §1.5.1): its engine ID,
/// boots and time are discovered first (RFC 3414 §4: an unauthenticated, reportable probe
/// answered by a `usmStatsUnknownEngineIDs` report), the user's keys are localized to that
/// engine ID, and the inform goes out authenticated (and encrypted at `authPriv`) on the
/// receiver's clock; its Response must carry a valid MAC. An inform given up forgets the
/// receiver's engine, so the next one discovers it again (a restarted receiver).
///
/// ```swift
/// let informs = SNMPInforms(configuration: .init(), clock: ContinuousClock())
/// let socket = DatagramServer(configuration: .init(host: "0.0.0.0", port: 0), protocol: informs, logger: logger)
/// informs.transport = { bytes, host, port in socket.send(bytes, to: host, port: port) }
/// ```
package final class SNMPInforms<C: Clock>: DatagramProtocol, SNMPInformDelivery where C.Duration == Duration {
    package struct Configuration: Sendable {
        /// How long to wait for an acknowledgement before resending.
        package var timeout: Duration
        /// Resends after the first send.
        package var retries: Int
        /// Informs awaiting acknowledgement at once.
        package var maxPending: Int

        package init(timeout: Duration = .seconds(5), retries: Int = 2, maxPending: Int = 256) {
            self.timeout = timeout
            self.retries = retries
            self.maxPending = maxPending
        }
    }

    package struct Statistics: Sendable, Equatable {
        /// Datagrams handed to the transport, resends included.
        package var sent = 0
        /// Informs acknowledged by their receiver.
        package var acknowledged = 0
        /// Resends.
        package var resent = 0
        /// Informs given up after every resend, or that could not be handed over.
        package var failed = 0
        /// Informs refused because ``Configuration/maxPending`` were awaiting acknowledgement.
        package var refused = 0
        /// Datagrams received that acknowledge nothing pending (late, unknown, or malformed).
        package var unmatched = 0
        /// SNMPv3 receivers' engines discovered.
        package var discovered = 0

        package init() {}
    }

    /// What is sent for an inform, at each attempt.
    private enum Delivery {
        /// SNMPv2c: the same datagram each time.
        case datagram([UInt8])
        /// SNMPv3: encoded at each attempt on the receiver's clock, or a discovery probe while
        /// its engine is unknown.
        case secured(pdu: PDU, contextName: String, credentials: USMCredentials)
    }

    private struct Pending {
        var host: String
        var port: Int
        var delivery: Delivery
        var task: Task<Void, Never>?
    }

    /// An SNMPv3 receiver: its address and the user informing it.
    private struct Receiver: Hashable {
        var host: String
        var port: Int
        var user: String
    }

    /// A receiver's engine as discovered, with the security model speaking to it.
    private struct RemoteEngine {
        var engineID: [UInt8]
        var usm: USM
        var user: USMUser
    }

    private struct State {
        var pending: [Int32: Pending] = [:]
        var statistics = Statistics()
        var remotes: [Receiver: RemoteEngine] = [:]
        /// Discovery probes awaiting their report, by message id.
        var probes: [Int32: Receiver] = [:]
        var probeID = Int32.random(in: 1...Int32.max / 2)
    }

    package let configuration: Configuration
    private let clock: C
    private let state = Mutex(State())
    /// Who waits for the statistics to reach a condition (``waitUntil(_:)``).
    private let watchers = Mutex<[(condition: @Sendable (Statistics) -> Bool, continuation: CheckedContinuation<Void, Never>)]>([])
    private let sendDatagram = Mutex<(@Sendable ([UInt8], String, Int) -> Bool)?>(nil)

    package init(configuration: Configuration = Configuration(), clock: C) {
        self.configuration = configuration
        self.clock = clock
    }

    /// Sends one datagram to a receiver (the inform socket's `send`); set before informing.
    package var transport: (@Sendable (_ datagram: [UInt8], _ host: String, _ port: Int) -> Bool)? {
        get { sendDatagram.withLock { $0 } }
        set { sendDatagram.withLock { $0 = newValue } }
    }

    package var statistics: Statistics { state.withLock { $0.statistics } }

    /// Informs awaiting acknowledgement now.
    package var pendingCount: Int { state.withLock { $0.pending.count } }

    /// Sends `message` (an InformRequest with request id `requestID`) to `host`:`port` and
    /// resends it until acknowledged or given up. Returns at once; `false` when refused or not
    /// handed over.
    @discardableResult
    package func inform(_ message: [UInt8], requestID: Int32, host: String, port: Int) -> Bool {
        start(Pending(host: host, port: port, delivery: .datagram(message)), requestID: requestID)
    }

    /// Sends `pdu` (an InformRequest; its request id names it) to `host`:`port` as SNMPv3 from
    /// `credentials` at their level, once the receiver's engine is known (discovered first when
    /// it is not), and resends it until acknowledged or given up. Returns at once; `false`
    /// when refused or not handed over.
    @discardableResult
    package func inform(_ pdu: PDU, contextName: String, credentials: USMCredentials, host: String, port: Int) -> Bool {
        start(Pending(host: host, port: port, delivery: .secured(pdu: pdu, contextName: contextName, credentials: credentials)),
              requestID: pdu.requestID)
    }

    private func start(_ inform: Pending, requestID: Int32) -> Bool {
        let admitted = state.withLock { state in
            guard state.pending.count < configuration.maxPending, state.pending[requestID] == nil else {
                state.statistics.refused += 1
                return false
            }
            state.pending[requestID] = inform
            return true
        }
        guard admitted else { return false }
        guard attempt(requestID) else {
            state.withLock { state in
                state.pending.removeValue(forKey: requestID)
                state.statistics.failed += 1
            }
            return false
        }
        let (clock, timeout, retries) = (clock, configuration.timeout, configuration.retries)
        let task = Task { [weak self] in
            for round in 0...retries {
                do { try await clock.sleep(for: timeout) } catch { return }   // acknowledged: cancelled
                guard let self else { return }
                let stillPending = self.state.withLock { $0.pending[requestID] != nil }
                guard stillPending else { return }
                if round == retries { break }
                self.state.withLock { $0.statistics.resent += 1 }
                _ = self.attempt(requestID)
            }
            self?.state.withLock { state in
                guard let given = state.pending.removeValue(forKey: requestID) else { return }
                state.statistics.failed += 1
                if case .secured(_, _, let credentials) = given.delivery {
                    state.remotes[Receiver(host: given.host, port: given.port, user: credentials.name)] = nil
                }
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
    package func handle(_ datagram: [UInt8], from peer: String) async -> [UInt8]? {
        if SNMPv3Message.isVersion3(datagram) {
            handleVersion3(datagram, from: PeerAddress.host(of: peer))
            return nil
        }
        guard let message = try? SNMPMessage(decoding: datagram), message.pdu.type == BERTag.response else {
            state.withLock { $0.statistics.unmatched += 1 }
            return nil
        }
        acknowledge(message.pdu.requestID, from: PeerAddress.host(of: peer), secured: false)
        return nil
    }

    /// A Response for `requestID` from `host`: the inform it names is acknowledged (its resends
    /// cancelled) if it went to that host in that version; otherwise counted unmatched.
    private func acknowledge(_ requestID: Int32, from host: String, secured: Bool) {
        let task: Task<Void, Never>?? = state.withLock { state in
            guard let pending = state.pending[requestID], pending.host == host else {
                state.statistics.unmatched += 1
                return nil
            }
            let isSecured = if case .secured = pending.delivery { true } else { false }
            guard isSecured == secured else {
                state.statistics.unmatched += 1
                return nil
            }
            state.pending.removeValue(forKey: requestID)
            state.statistics.acknowledged += 1
            return .some(pending.task)
        }
        if case .some(let running) = task { running?.cancel() }
        notifyWatchers()
    }

    /// An SNMPv3 datagram: a discovery report (then the informs waiting for that receiver go
    /// out), or an authentic Response acknowledging an inform.
    private func handleVersion3(_ datagram: [UInt8], from host: String) {
        guard let message = try? SNMPv3Message(decoding: datagram) else {
            state.withLock { $0.statistics.unmatched += 1 }
            notifyWatchers()
            return
        }
        if !message.flags.contains(.authenticated), case .plain(let scoped) = message.data, scoped.pdu.type == BERTag.report {
            discovered(message, from: host)
            return
        }
        let remote = state.withLock { state in
            state.remotes.first { $0.key.host == host && $0.value.engineID == message.engineID
                && Array($0.key.user.utf8) == message.userName }?.value
        }
        guard let remote, case .request(_, let scoped, _) = remote.usm.process(message, bytes: datagram),
              scoped.pdu.type == BERTag.response else {
            state.withLock { $0.statistics.unmatched += 1 }
            notifyWatchers()
            return
        }
        acknowledge(scoped.pdu.requestID, from: host, secured: true)
    }

    /// A report answering a discovery probe: the receiver's engine ID, boots and time. Its
    /// waiting informs are sent at once.
    private func discovered(_ message: SNMPv3Message, from host: String) {
        let (clock, now) = (clock, clock.now)
        let (boots, time) = (message.boots, message.time)
        let waiting: [Int32]? = state.withLock { state in
            guard let receiver = state.probes[message.messageID], receiver.host == host, !message.engineID.isEmpty,
                  let credentials = state.pending.values.lazy.compactMap({ pending -> USMCredentials? in
                      guard case .secured(_, _, let credentials) = pending.delivery, pending.host == receiver.host,
                            pending.port == receiver.port, credentials.name == receiver.user else { return nil }
                      return credentials
                  }).first,
                  let user = credentials.localized(to: message.engineID) else { return nil }
            state.probes = state.probes.filter { $0.value != receiver }
            let engine = SNMPEngine(engineID: message.engineID, boots: boots, time: {
                Int32(clamping: Int64(time) + now.duration(to: clock.now).components.seconds)
            })
            state.remotes[receiver] = RemoteEngine(engineID: message.engineID,
                                                   usm: USM(engine: engine, users: [user], saltSeed: UInt64.random(in: 0...UInt64.max)),
                                                   user: user)
            state.statistics.discovered += 1
            return state.pending.compactMap { id, pending in
                guard case .secured(_, _, let credentials) = pending.delivery, pending.host == receiver.host,
                      pending.port == receiver.port, credentials.name == receiver.user else { return nil }
                return id
            }
        }
        guard let waiting else {
            state.withLock { $0.statistics.unmatched += 1 }
            notifyWatchers()
            return
        }
        for requestID in waiting.sorted() { _ = attempt(requestID) }
    }

    /// One attempt at the pending inform `requestID`: its datagram, its SNMPv3 message on the
    /// receiver's clock, or a discovery probe while the receiver's engine is unknown.
    private func attempt(_ requestID: Int32) -> Bool {
        let datagram: (bytes: [UInt8], host: String, port: Int)? = state.withLock { state in
            guard let pending = state.pending[requestID] else { return nil }
            switch pending.delivery {
            case .datagram(let bytes):
                return (bytes, pending.host, pending.port)
            case .secured(let pdu, let contextName, let credentials):
                let receiver = Receiver(host: pending.host, port: pending.port, user: credentials.name)
                if let remote = state.remotes[receiver] {
                    return remote.usm.outgoing(pdu, user: remote.user, level: credentials.level, messageID: requestID,
                                               contextName: contextName).map { ($0, pending.host, pending.port) }
                }
                state.probeID = state.probeID == Int32.max ? 1 : state.probeID + 1
                if state.probes.count >= configuration.maxPending { state.probes.removeAll() }
                state.probes[state.probeID] = receiver
                return (Self.probe(messageID: state.probeID), pending.host, pending.port)
            }
        }
        guard let datagram else { return false }
        return deliver(datagram.bytes, host: datagram.host, port: datagram.port)
    }

    /// RFC 3414 §4's discovery message: unauthenticated, reportable, no engine ID nor user,
    /// an empty Get.
    static func probe(messageID: Int32) -> [UInt8] {
        let message = SNMPv3Message(messageID: messageID, maxSize: 65_507, flags: [.reportable], engineID: [], boots: 0, time: 0,
                                    userName: [], data: .encrypted([]))
        let scoped = SNMPv3Message.scopedPDUBytes(contextEngineID: [], contextName: [],
                                                  pdu: PDU(type: BERTag.getRequest, requestID: messageID, varBinds: []), varBindBytes: [])
        return message.encoded(dataBytes: scoped, authenticationLength: 0).bytes
    }

    /// Returns once `condition` holds for the statistics (tests, and a shutdown that lets the
    /// informs in flight settle under a deadline of its own).
    package func waitUntil(_ condition: @escaping @Sendable (Statistics) -> Bool) async {
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

}
