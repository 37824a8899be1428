import Synchronization
import WPServer

/// What an ``SNMPAgent`` has done since it was made (the RFC 3418 `snmp` group's counters
/// where one exists).
package struct SNMPAgentStatistics: Sendable, Equatable {
    /// Datagrams handed to the agent (`snmpInPkts`).
    package var received = 0
    /// Datagrams that were not a well-formed SNMPv1/v2c message (`snmpInASNParseErrs`).
    package var malformed = 0
    /// Messages of another version (unknown, or SNMPv3 without users) (`snmpInBadVersions`).
    package var badVersions = 0
    /// Messages with a community that is not configured, dropped unanswered
    /// (`snmpInBadCommunityNames`).
    package var badCommunities = 0
    /// Requests whose `community@name` or SNMPv3 context names no UPS, dropped unanswered.
    package var unknownContexts = 0
    /// Messages that are not requests to an agent (Response, Trap, Inform, Report), dropped.
    package var notRequests = 0
    /// Requests answered.
    package var answered = 0
    /// Answers of error-status `tooBig` (`snmpOutTooBigs`).
    package var tooBig = 0
    /// Requests dropped because even an empty answer exceeded the size bound (`snmpSilentDrops`).
    package var silentDrops = 0
    /// Set requests refused.
    package var setsRefused = 0
    /// SNMPv3 Report PDUs sent (engine discovery, unknown users, wrong digests, time windows, …).
    package var reports = 0

    package init() {}
}

/// A read-only SNMPv1 and SNMPv2c agent over a ``SNMPMIBView``: `Get`, `GetNext`,
/// `GetBulk`, and `Set` refused. Served by a `DatagramServer`:
///
/// ```swift
/// let agent = SNMPAgent(configuration: .init(communities: ["public"])) { latestView }
/// let server = DatagramServer(configuration: .init(host: "0.0.0.0", port: 161), protocol: agent, logger: logger)
/// try await server.run()
/// ```
///
/// - Access: communities are read-only. A message with another community is dropped
///   unanswered and counted (``SNMPAgentStatistics/badCommunities``); a community is never
///   logged. A `Set` is answered `noAccess` (SNMPv2c, RFC 3416 §4.2.5 with the VACM's
///   not-in-view) or `noSuchName` (SNMPv1: RFC 1157 §4.1.5, and RFC 3584 §4.4 maps `noAccess`
///   to it), error-index 1, the bindings echoed.
/// - SNMPv1: an exception (`noSuchObject`, `noSuchInstance`, `endOfMibView`) or a Counter64
///   value answers `noSuchName` with the index of the binding (RFC 3584 §4.2.2); GetNext skips
///   Counter64 instances.
/// - **Response size**: at most ``Configuration/responseLimit(forRequestOf:)`` bytes, the
///   smallest of the configured ``Configuration/maxMessageSize`` (1,472 by default: one
///   Ethernet frame) and the amplification bound. A Get or GetNext whose answer is larger is
///   answered `tooBig` (SNMPv2c: no bindings; SNMPv1: the request's bindings, RFC 1157
///   §4.1.2); a GetBulk answer is cut after the last binding that fits, error-status `noError`
///   (RFC 3416 §4.2.3), and is `tooBig` only when not even one binding fits. When even that
///   answer does not fit, the request is dropped (``SNMPAgentStatistics/silentDrops``).
/// - **Amplification bound** (community messages are unauthenticated, so a spoofed source
///   could aim answers at a victim): an answer is never larger than
///   `max(request bytes × amplificationFactor, minimumResponseLimit)`, 8 × the request and
///   at least 484 bytes (the message size every SNMP engine must accept, RFC 3417 §3.2) by
///   default.
/// - GetBulk: max-repetitions is capped at ``Configuration/maxRepetitions`` (64 by default);
///   negative non-repeaters and max-repetitions count as 0 (RFC 3416 §4.2.3); the
///   repetitions stop early once every repeater has reached the end of the view.
package struct SNMPAgent: DatagramProtocol {
    /// The agent's access and bounds.
    package struct Configuration: Sendable {
        /// The read-only communities.
        package var communities: Set<[UInt8]>
        /// Communities (among ``communities``) that read the `system` group only.
        package var systemOnlyCommunities: Set<[UInt8]> = []
        /// The largest answer sent, whatever the request (bytes of the SNMP message).
        package var maxMessageSize: Int
        /// The most repetitions a GetBulk request is served.
        package var maxRepetitions: Int
        /// An answer is at most this many times its request's size ...
        package var amplificationFactor: Int
        /// ... or this many bytes, whichever is larger.
        package var minimumResponseLimit: Int

        /// The SNMPv3 engine; `nil`: SNMPv3 messages are dropped (``SNMPAgentStatistics/badVersions``).
        package var engine: SNMPEngine?
        /// The SNMPv3 users (their keys localized to ``engine``).
        package var users: [USMUser]

        package init(communities: [String], maxMessageSize: Int = 1472, maxRepetitions: Int = 64, amplificationFactor: Int = 8,
                    minimumResponseLimit: Int = 484, engine: SNMPEngine? = nil, users: [USMUser] = []) {
            self.engine = engine
            self.users = users
            self.communities = Set(communities.map { Array($0.utf8) })
            self.maxMessageSize = maxMessageSize
            self.maxRepetitions = maxRepetitions
            self.amplificationFactor = amplificationFactor
            self.minimumResponseLimit = minimumResponseLimit
        }

        /// The largest answer to a request of `requestBytes` bytes:
        /// `min(maxMessageSize, max(requestBytes × amplificationFactor, minimumResponseLimit))`.
        package func responseLimit(forRequestOf requestBytes: Int) -> Int {
            let (product, overflow) = requestBytes.multipliedReportingOverflow(by: amplificationFactor)
            return min(maxMessageSize, max(overflow ? Int.max : product, minimumResponseLimit))
        }
    }

    package let configuration: Configuration
    private let views: @Sendable (_ context: String) -> (any SNMPMIBView)?
    private let counters = AgentCounters()
    private let usm: USM?

    /// An agent answering from `view`, called once per request for the current snapshot.
    package init(configuration: Configuration, view: @escaping @Sendable () -> any SNMPMIBView) {
        self.init(configuration: configuration, views: { context in context.isEmpty ? view() : nil })
    }

    /// An agent answering from the view `views` gives for a request's context, called once per
    /// request: `""` without a selector, `name` for the community `community@name` (SNMPv1
    /// and SNMPv2c) or the SNMPv3 context name `name`; `nil` drops the request
    /// (``SNMPAgentStatistics/unknownContexts``).
    package init(configuration: Configuration, views: @escaping @Sendable (_ context: String) -> (any SNMPMIBView)?) {
        self.configuration = configuration
        self.views = views
        usm = configuration.engine.map { USM(engine: $0, users: configuration.users, saltSeed: UInt64.random(in: 0...UInt64.max)) }
    }

    /// What the agent has done since it was made.
    package var statistics: SNMPAgentStatistics { counters.value.withLock { $0 } }

    /// What the user-based security model counted; zero without SNMPv3.
    package var securityStatistics: USMStatistics { usm?.statistics ?? USMStatistics() }

    /// A request being answered: its PDU, the semantics of its version (SNMPv3 answers as
    /// SNMPv2c does), and how its answers are sized and written.
    private struct Exchange {
        var version: SNMPVersion
        var request: PDU
        /// The view the request's context selected.
        var view: any SNMPMIBView
        /// The whole answer's size for a Response `PDU` whose bindings take the given bytes.
        var size: (PDU, Int) -> Int
        /// The whole answer for a Response `PDU` and its encoded bindings.
        var encode: (PDU, [UInt8]) -> [UInt8]?

        init(_ message: SNMPMessage, view: any SNMPMIBView) {
            self.view = view
            version = message.version
            request = message.pdu
            size = { pdu, count in SNMPMessage(version: message.version, community: message.community, pdu: pdu).encodedSize(varBindBytes: count) }
            encode = { pdu, bytes in SNMPMessage(version: message.version, community: message.community, pdu: pdu).encoded(varBindBytes: bytes) }
        }

        init(_ message: SNMPv3Message, scoped: SNMPv3Message.ScopedPDU, user: USMUser, usm: USM, view: any SNMPMIBView) {
            self.view = view
            version = .v2c
            request = scoped.pdu
            size = { pdu, count in usm.responseSize(to: message, scoped: scoped, user: user, pdu: pdu, varBindBytes: count) }
            encode = { pdu, bytes in usm.response(to: message, scoped: scoped, user: user, pdu: pdu, varBindBytes: bytes) }
        }
    }

    package func handle(_ datagram: [UInt8], from peer: String) async -> [UInt8]? {
        answer(datagram)
    }

    /// Answered on the server's loop: a request is a lookup in a view held in memory (and, for
    /// SNMPv3, a MAC and AES over at most one message), never I/O.
    package var answersInline: Bool { true }

    package func answerInline(_ datagram: [UInt8], from peer: String) -> [UInt8]? {
        answer(datagram)
    }

    /// The answer to `datagram`, or `nil` to send nothing (synchronous: a request is CPU work
    /// that finishes, bounded by the response limit).
    package func answer(_ datagram: [UInt8]) -> [UInt8]? {
        counters.update { $0.received += 1 }
        if SNMPv3Message.isVersion3(datagram) { return answerVersion3(datagram) }
        let request: SNMPMessage
        do {
            request = try SNMPMessage(decoding: datagram)
        } catch {
            if case .unsupportedVersion = error {
                counters.update { $0.badVersions += 1 }
            } else {
                counters.update { $0.malformed += 1 }
            }
            return nil
        }
        // `community` or `community@name`: the community, and the UPS it selects.
        var community = request.community
        var context: [UInt8] = []
        if !configuration.communities.contains(community), let at = community.lastIndex(of: UInt8(ascii: "@")) {
            context = Array(community[(at + 1)...])
            community = Array(community[..<at])
        }
        guard configuration.communities.contains(community) else {
            counters.update { $0.badCommunities += 1 }
            return nil
        }
        guard var view = views(String(decoding: context, as: UTF8.self)) else {
            counters.update { $0.unknownContexts += 1 }
            return nil
        }
        if configuration.systemOnlyCommunities.contains(community) { view = SubtreeView(view, subtree: SystemGroup.system) }
        return serve(Exchange(request, view: view), limit: configuration.responseLimit(forRequestOf: datagram.count))
    }

    /// An SNMPv3 message through the user-based security model: a request at its user's level
    /// answered at the same level, a report, or nothing.
    private func answerVersion3(_ datagram: [UInt8]) -> [UInt8]? {
        guard let usm else {
            counters.update { $0.badVersions += 1 }
            return nil
        }
        let message: SNMPv3Message
        do {
            message = try SNMPv3Message(decoding: datagram)
        } catch {
            counters.update { $0.malformed += 1 }
            return nil
        }
        switch usm.process(message, bytes: datagram) {
        case .drop:
            return nil
        case .report(let bytes):
            // An unauthenticated report is bounded as any unauthenticated answer is.
            guard bytes.count <= configuration.responseLimit(forRequestOf: datagram.count) else {
                counters.update { $0.silentDrops += 1 }
                return nil
            }
            counters.update { $0.reports += 1 }
            return bytes
        case .request(let message, let scoped, let user):
            // An authenticated request is no amplification vector: bounded by the agent's and the
            // manager's maximum sizes; a noAuthNoPriv one as community requests are.
            let ownLimit = SNMPSecurityLevel(message.flags) >= .authNoPriv ? configuration.maxMessageSize
                : configuration.responseLimit(forRequestOf: datagram.count)
            guard let view = views(String(decoding: scoped.contextName, as: UTF8.self)) else {
                counters.update { $0.unknownContexts += 1 }
                return nil
            }
            return serve(Exchange(message, scoped: scoped, user: user, usm: usm, view: view), limit: min(ownLimit, Int(max(484, message.maxSize))))
        }
    }

    /// Answers an authentic request of any version.
    private func serve(_ exchange: Exchange, limit: Int) -> [UInt8]? {
        let bytes: [UInt8]?
        switch exchange.request.type {
        case BERTag.getRequest, BERTag.getNextRequest: bytes = getOrNext(exchange, limit: limit)
        case BERTag.getBulkRequest: bytes = bulk(exchange, limit: limit)
        case BERTag.setRequest:
            counters.update { $0.setsRefused += 1 }
            let error: SNMPErrorStatus = exchange.version == .v1 ? .noSuchName : .noAccess
            let bindings = exchange.request.varBinds
            bytes = respond(exchange, bindings.isEmpty ? .noError : error, index: bindings.isEmpty ? 0 : 1, bindings, limit: limit)
        default:
            counters.update { $0.notRequests += 1 }
            return nil
        }
        counters.update { if bytes == nil { $0.silentDrops += 1 } else { $0.answered += 1 } }
        return bytes
    }

    // MARK: - Requests

    private func getOrNext(_ exchange: Exchange, limit: Int) -> [UInt8]? {
        let view = exchange.view
        let request = exchange.request
        let isNext = request.type == BERTag.getNextRequest
        var results: [VarBind] = []
        results.reserveCapacity(request.varBinds.count)
        for (offset, binding) in request.varBinds.enumerated() {
            let found = isNext ? next(after: binding.oid, in: view, version: exchange.version)
                : VarBind(binding.oid, view.get(binding.oid))
            if exchange.version == .v1, found.value.isException || isCounter64(found.value) {
                return respond(exchange, .noSuchName, index: Int32(clamping: offset + 1), request.varBinds, limit: limit)
            }
            results.append(found)
        }
        let encoded = results.flatMap(BERWriter.varBind)
        let response = PDU.response(requestID: request.requestID, varBinds: [])
        if exchange.size(response, encoded.count) <= limit {
            return exchange.encode(response, encoded)
        }
        counters.update { $0.tooBig += 1 }
        return respond(exchange, .tooBig, index: 0, exchange.version == .v1 ? request.varBinds : [], limit: limit)
    }

    private func bulk(_ exchange: Exchange, limit: Int) -> [UInt8]? {
        let view = exchange.view
        let request = exchange.request
        let bindings = request.varBinds
        let nonRepeaters = min(max(0, Int(request.field1)), bindings.count)
        let repetitions = min(max(0, Int(request.field2)), configuration.maxRepetitions)
        let response = PDU.response(requestID: request.requestID, varBinds: [])
        var encoded: [UInt8] = []
        var count = 0
        // Appends one binding if the answer still fits; false once it does not.
        func fits(_ binding: VarBind) -> Bool {
            let bytes = BERWriter.varBind(binding)
            guard exchange.size(response, encoded.count + bytes.count) <= limit else { return false }
            encoded += bytes
            count += 1
            return true
        }
        var full = false
        for binding in bindings.prefix(nonRepeaters) where !full {
            full = !fits(next(after: binding.oid, in: view, version: .v2c))
        }
        var cursors = bindings.dropFirst(nonRepeaters).map(\.oid)
        var ended = [Bool](repeating: false, count: cursors.count)
        var repetition = 0
        while !full, !cursors.isEmpty, repetition < repetitions, !ended.allSatisfy({ $0 }) {
            for index in cursors.indices where !full {
                let found = ended[index] ? VarBind(cursors[index], .endOfMibView) : next(after: cursors[index], in: view, version: .v2c)
                if found.value == .endOfMibView { ended[index] = true } else { cursors[index] = found.oid }
                full = !fits(found)
            }
            repetition += 1
        }
        if count == 0, !bindings.isEmpty, full {
            counters.update { $0.tooBig += 1 }
            return respond(exchange, .tooBig, index: 0, [], limit: limit)
        }
        return exchange.encode(response, encoded)
    }

    /// The instance after `oid` (SNMPv1: skipping Counter64 instances), or `endOfMibView`.
    private func next(after oid: OID, in view: any SNMPMIBView, version: SNMPVersion) -> VarBind {
        var cursor = oid
        while let found = view.next(after: cursor) {
            guard version == .v1, isCounter64(found.value) else { return found }
            cursor = found.oid
        }
        return VarBind(oid, .endOfMibView)
    }

    private func isCounter64(_ value: SNMPValue) -> Bool {
        if case .counter64 = value { return true }
        return false
    }

    /// A Response with `error` at `index` and `bindings`, or `nil` when larger than `limit`.
    private func respond(_ exchange: Exchange, _ error: SNMPErrorStatus, index: Int32, _ bindings: [VarBind], limit: Int) -> [UInt8]? {
        let response = PDU.response(requestID: exchange.request.requestID, error: error, index: index, varBinds: [])
        let encoded = bindings.flatMap(BERWriter.varBind)
        guard exchange.size(response, encoded.count) <= limit else { return nil }
        return exchange.encode(response, encoded)
    }
}

/// An ``SNMPAgent``'s statistics, updated from any request's task.
final class AgentCounters: Sendable {
    let value = Mutex(SNMPAgentStatistics())
    func update(_ change: (inout SNMPAgentStatistics) -> Void) { value.withLock { change(&$0) } }
}
