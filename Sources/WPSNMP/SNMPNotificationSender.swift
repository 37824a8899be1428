import Synchronization

/// Sends notifications (SNMPv2-Trap PDUs, or SNMPv2c and SNMPv3 InformRequests through
/// ``SNMPInforms``) to the configured receivers, SNMPv2c with a community or SNMPv3 as a user
/// of the agent's engine (the sender of a Trap is authoritative,
/// so the user's keys are those localized to the agent's engine ID), rate-limited per
/// receiver, never waiting: `send` encodes and hands each datagram to `transport` (the agent's
/// `DatagramServer.send(_:to:port:)`, which the event loop sends), and returns.
///
/// ```swift
/// let sender = SNMPNotificationSender(configuration: .init(receivers: [.init(host: "192.0.2.9", port: 162,
///                                                                           security: .community("public"))]),
///                                     uptime: { agentUptime() }, now: { clock.now - start }) { bytes, host, port in
///     server.send(bytes, to: host, port: port)
/// }
/// sender.send(notifier.update(values, now: clock.now - start))
/// ```
package final class SNMPNotificationSender: Sendable {
    /// Where notifications go.
    package struct Receiver: Sendable {
        package enum Security: Sendable {
            /// SNMPv2c with this community.
            case community(String)
            /// SNMPv3 traps as this user of the agent's engine at this level (`authPriv` or
            /// `authNoPriv`; `noAuthNoPriv` only for a user configured without passwords).
            case user(USMUser, SNMPSecurityLevel)
            /// SNMPv3 informs as this user at its level, the keys localized to the receiver's
            /// engine once ``SNMPInforms`` discovered it (the receiver is authoritative).
            case remoteUser(USMCredentials)
        }

        /// An IPv4 or IPv6 address literal (nothing is resolved while sending).
        package var host: String
        package var port: Int
        package var security: Security
        /// InformRequests, acknowledged and resent, instead of traps (always for
        /// ``Security/remoteUser(_:)``; never for ``Security/user(_:_:)``, whose keys are the
        /// agent engine's).
        package var inform: Bool

        package init(host: String, port: Int = 162, security: Security, inform: Bool = false) {
            self.host = host
            self.port = port
            self.security = security
            self.inform = inform
        }
    }

    package struct Configuration: Sendable {
        package var receivers: [Receiver]
        /// Notifications per receiver per minute; more are dropped and counted (a flapping UPS
        /// cannot flood a manager).
        package var maxPerMinute: Int
        /// The engine SNMPv3 notifications are sent from (the agent's); `nil`: SNMPv3 receivers
        /// get nothing (counted as failures).
        package var engine: SNMPEngine?

        package init(receivers: [Receiver], maxPerMinute: Int = 30, engine: SNMPEngine? = nil) {
            self.receivers = receivers
            self.maxPerMinute = maxPerMinute
            self.engine = engine
        }
    }

    package struct Statistics: Sendable, Equatable {
        /// Datagrams handed to the transport.
        package var sent = 0
        /// Notifications not sent to a receiver over its rate limit.
        package var rateLimited = 0
        /// Notifications that could not be encoded or handed over (no libcrypto for an SNMPv3
        /// receiver, the agent not serving, an address that is not a literal).
        package var failures = 0

        package init() {}
    }

    package let configuration: Configuration
    private let uptime: @Sendable () -> UInt32
    private let now: @Sendable () -> Duration
    private let transport: @Sendable (_ datagram: [UInt8], _ host: String, _ port: Int) -> Bool
    private let usm: USM?
    private let informs: (any SNMPInformDelivery)?
    /// Per receiver, the send times within the last minute; the statistics; the next request id.
    private let state: Mutex<(windows: [[Duration]], statistics: Statistics, requestID: Int32)>

    /// - Parameters:
    ///   - configuration: the receivers, their versions and the rate limit.
    ///   - uptime: `sysUpTime` in hundredths of a second, the first binding of each notification.
    ///   - now: a monotonic time for the rate limit.
    ///   - transport: sends one datagram; `false` when it could not be handed over.
    ///   - informs: sends the receivers' informs (``SNMPInforms``); `nil`: informs fail.
    package init(configuration: Configuration, uptime: @escaping @Sendable () -> UInt32, now: @escaping @Sendable () -> Duration,
                informs: (any SNMPInformDelivery)? = nil,
                transport: @escaping @Sendable (_ datagram: [UInt8], _ host: String, _ port: Int) -> Bool) {
        self.configuration = configuration
        self.informs = informs
        self.uptime = uptime
        self.now = now
        self.transport = transport
        usm = configuration.engine.map { USM(engine: $0, users: [], saltSeed: UInt64.random(in: 0...UInt64.max)) }
        state = Mutex(([[Duration]](repeating: [], count: configuration.receivers.count), Statistics(),
                       Int32.random(in: 1...Int32.max / 2)))
    }

    package var statistics: Statistics { state.withLock { $0.statistics } }

    /// Sends each notification to every receiver within its rate limit.
    package func send(_ notifications: [SNMPNotification]) {
        for notification in notifications {
            for (index, receiver) in configuration.receivers.enumerated() {
                let instant = now()
                let admitted: Int32? = state.withLock { state in
                    state.windows[index].removeAll { instant - $0 >= .seconds(60) }
                    guard state.windows[index].count < configuration.maxPerMinute else {
                        state.statistics.rateLimited += 1
                        return nil
                    }
                    state.windows[index].append(instant)
                    state.requestID = state.requestID == Int32.max ? 1 : state.requestID + 1
                    return state.requestID
                }
                guard let requestID = admitted else { continue }
                let inform: Bool = if case .remoteUser = receiver.security { true } else { receiver.inform }
                let pdu = notification.pdu(requestID: requestID, uptime: uptime(),
                                           type: inform ? BERTag.informRequest : BERTag.snmpV2Trap)
                let sent: Bool
                switch receiver.security {
                case .community(let community):
                    let bytes = SNMPMessage(version: .v2c, community: Array(community.utf8), pdu: pdu).encoded()
                    sent = inform ? informs?.inform(bytes, requestID: requestID, host: receiver.host, port: receiver.port) ?? false
                        : transport(bytes, receiver.host, receiver.port)
                case .user(let user, let level):
                    // Keys localized to the agent's engine serve traps only (an inform's receiver is authoritative).
                    sent = inform ? false : usm?.outgoing(pdu, user: user, level: level, messageID: requestID, contextName: notification.context)
                        .map { transport($0, receiver.host, receiver.port) } ?? false
                case .remoteUser(let credentials):
                    sent = informs?.inform(pdu, contextName: notification.context, credentials: credentials, host: receiver.host,
                                           port: receiver.port) ?? false
                }
                state.withLock { if sent { $0.statistics.sent += 1 } else { $0.statistics.failures += 1 } }
            }
        }
    }
}
