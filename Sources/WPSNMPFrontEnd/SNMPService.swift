import WPPOSIX
import WPRuntime
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import FoundationEssentials
import Synchronization
package import WPEnergy
package import WPConfig
package import WPFrontEnd
package import WPLogging
package import WPMetrics
import WPNUTFrontEnd
package import WPServer
package import WPSNMP
import WPStorage
package import WPWallClock

/// The SNMP agent of `snmp.*` (docs/snmp.md): the UDP listener serving UPS-MIB views of the
/// fleet, its SNMPv3 engine (ID and boots kept in the data directory), and the notifications
/// sent after each published collection, with the informs' own socket.
package final class SNMPService<C: Clock>: Sendable where C.Duration == Duration {
    package let server: DatagramServer<SNMPAgent>
    package let agent: SNMPAgent
    package let informSocket: DatagramServer<SNMPInforms<C>>?
    package let informs: SNMPInforms<C>?
    package let sender: SNMPNotificationSender?
    package let source: SNMPFleetSource<C>
    package let engine: SNMPEngine
    private let notifiers = Mutex<[String: UPSNotifier]>([:])
    private let clock: C
    private let start: C.Instant
    /// `snmp.listen`, shown in `/health` until the socket is bound.
    private let listen: String

    /// The agent of `configuration.snmp`, or `nil` when `snmp.listen` is not set, subscribed to
    /// `publication`: each publication rebuilds its views, then sends the notifications due.
    ///
    /// - Parameters:
    ///   - engineDirectory: where the engine's ID and boots are kept (the data directory);
    ///     `nil`: a new engine each start (energy kept in memory).
    ///   - version: the exporter's version (`sysDescr`, `upsIdentAgentSoftwareVersion`).
    ///   - wallClock: the wall clock the outage ledger's self-test times are in.
    /// - Throws: ``FrontEndError/configuration(_:)`` naming `snmp.users_file` or the data
    ///   directory, or ``FrontEndError/metrics(_:)``.
    package static func make(_ configuration: ExporterConfiguration, publication: some FleetPublishing<C>,
                             engineDirectory: String?, registry: MetricRegistry, version: String, clock: C,
                             wallClock: WallClock, logger: WPLogger,
                             batteryHealth: @escaping @Sendable () -> BatteryHealthMeter? = { nil })
        throws(FrontEndError) -> SNMPService? {
        let snmp = configuration.snmp
        guard let address = snmp.address else { return nil }
        guard let path = snmp.usersFile else { throw .configuration("snmp.listen: needs snmp.users_file") }
        let file: SNMPUsersFile
        do {
            file = try SNMPUsersFile.load(path: path, files: .system)
        } catch {
            throw .configuration("\(error)")
        }
        let source = SNMPFleetSource(system: SystemGroup(snmp, version: version), defaultUPS: snmp.defaultUPS,
                                     version: version, lowBatteryTime: Double(configuration.nut.batteryRuntimeLow.components.seconds),
                                     clock: clock, wallClock: wallClock, batteryHealth: batteryHealth)
        let random = { (0..<8).map { _ in UInt8.random(in: 0...255) } }
        var stored = StoredSNMPEngine(engineID: SNMPEngine.engineID(random: random()), boots: 1)
        if let engineDirectory {
            do {
                let started = try SNMPEngineFile.start(directory: engineDirectory, newEngineID: { SNMPEngine.engineID(random: random()) })
                stored = started.engine
                if let problem = started.problem { logger.warn("a new SNMP engine ID was made", ["reason": .string(problem)]) }
            } catch {
                throw .configuration("storage.data_dir: the SNMP engine file: \(error)")
            }
        }
        let start = clock.now
        let engine = SNMPEngine(engineID: stored.engineID, boots: stored.boots, time: {
            Int32(clamping: start.duration(to: clock.now).components.seconds)
        })
        // Each user's passwords hashed once (RFC 3414 §2.6): the keys localized to this engine for
        // requests and traps, and to each inform receiver's engine once discovered.
        var credentials: [String: USMCredentials] = [:]
        var users: [String: USMUser] = [:]
        for user in file.users {
            do {
                let made = try USMCredentials(name: user.name, authenticationProtocol: Self.authenticationProtocol(user.authProtocol),
                                              authenticationPassword: user.authPassword?.reveal(),
                                              privacyPassword: user.privPassword?.reveal())
                credentials[user.name] = made
                users[user.name] = try USMUser(made, engineID: stored.engineID)
            } catch {
                throw .configuration("snmp.users_file: \(error)")
            }
        }
        var agentConfiguration = SNMPAgent.Configuration(communities: file.communities.map { $0.community.reveal() },
                                                         engine: engine, users: Array(users.values))
        agentConfiguration.systemOnlyCommunities = Set(file.communities.filter(\.systemOnly).map { Array($0.community.reveal().utf8) })
        let agent = SNMPAgent(configuration: agentConfiguration) { context in source.view(context: context) }
        let server = DatagramServer(configuration: .init(host: address.host, port: address.port), protocol: agent,
                                    logger: logger.component("snmp"))
        let needsInforms = file.traps.contains(where: \.inform)
        let informs = needsInforms ? SNMPInforms(configuration: .init(), clock: clock) : nil
        // On the agent's address, as the traps leave from the agent's socket: an agent on loopback
        // opens no port on another interface for the informs' responses.
        let informSocket = informs.map { informs in
            DatagramServer(configuration: .init(host: address.host, port: 0), protocol: informs,
                           logger: logger.component("snmp"))
        }
        if let informs, let informSocket {
            informs.transport = { bytes, host, port in informSocket.send(bytes, to: host, port: port) }
        }
        var sender: SNMPNotificationSender?
        if !file.traps.isEmpty {
            let receivers: [SNMPNotificationSender.Receiver] = file.traps.compactMap { trap in
                if let community = trap.community {
                    return .init(host: trap.host, port: trap.port, security: .community(community.reveal()), inform: trap.inform)
                }
                guard let name = trap.user, let user = users[name], let credentials = credentials[name] else { return nil }
                guard trap.inform else { return .init(host: trap.host, port: trap.port, security: .user(user, user.minimumLevel)) }
                return .init(host: trap.host, port: trap.port, security: .remoteUser(credentials), inform: true)
            }
            sender = SNMPNotificationSender(configuration: .init(receivers: receivers, engine: engine),
                                            uptime: { SNMPService.ticks(start.duration(to: clock.now)) },
                                            now: { start.duration(to: clock.now) }, informs: informs) { bytes, host, port in
                server.send(bytes, to: host, port: port)
            }
        }
        let service = SNMPService(server: server, agent: agent, informSocket: informSocket, informs: informs, sender: sender,
                                  source: source, engine: engine, clock: clock, start: start, listen: snmp.listen ?? "")
        do {
            try registry.register(SNMPMetrics(service: service))
        } catch {
            throw .metrics(error)
        }
        publication.subscribe { service.published($0) }
        return service
    }

    private init(server: DatagramServer<SNMPAgent>, agent: SNMPAgent, informSocket: DatagramServer<SNMPInforms<C>>?,
                 informs: SNMPInforms<C>?, sender: SNMPNotificationSender?, source: SNMPFleetSource<C>, engine: SNMPEngine,
                 clock: C, start: C.Instant, listen: String) {
        self.listen = listen
        self.server = server
        self.agent = agent
        self.informSocket = informSocket
        self.informs = informs
        self.sender = sender
        self.source = source
        self.engine = engine
        self.clock = clock
        self.start = start
    }

    /// A publication of the fleet: the UPS-MIB views rebuilt from it,
    /// then each UPS's notifications sent. Runs on the publishing task; returns at once.
    package func published(_ state: FleetState<C>) {
        source.rebuild(state)
        notify()
    }

    /// Each UPS's notifications (on battery, test completed, alarms added and removed) since
    /// the last call, to the receivers. Returns at once (the loop sends).
    package func notify() {
        let current = source.upsValues()
        guard let sender else { return }
        let now = start.duration(to: clock.now)
        let notifications = notifiers.withLock { notifiers in
            var due: [SNMPNotification] = []
            var seen: [String: UPSNotifier] = [:]
            for (name, values) in current {
                var notifier = notifiers[name] ?? UPSNotifier()
                due += notifier.update(values, now: now).map { $0.about(ups: name) }
                seen[name] = notifier
            }
            notifiers = seen
            return due
        }
        sender.send(notifications)
    }

    /// The USM protocol a users file's `auth_protocol` names.
    static func authenticationProtocol(_ named: SNMPUsersFile.AuthProtocol) -> USMAuthenticationProtocol {
        switch named {
        case .sha1: .sha1
        case .sha224: .sha224
        case .sha256: .sha256
        case .sha384: .sha384
        case .sha512: .sha512
        }
    }

    /// `duration` in hundredths of a second (TimeTicks), wrapping as RFC 2578 says.
    static func ticks(_ duration: Duration) -> UInt32 {
        let (seconds, attoseconds) = duration.components
        return UInt32(truncatingIfNeeded: seconds &* 100 &+ attoseconds / 10_000_000_000_000_000)
    }
}

/// The SNMP agent in `/health`: where it listens (the configured `snmp.listen` until it is
/// bound), the UPSs it serves, its SNMPv3 engine (the ID trap receivers configure), what it
/// answered and refused, and its notifications.
package struct SNMPHealth: Codable, Sendable, Equatable {
    package var listen: String
    /// UPSs served (one UPS-MIB view each).
    package var ups: Int
    /// The SNMPv3 engine ID, hexadecimal.
    package var engineID: String
    package var engineBoots: Int
    /// Requests answered (responses), and refused or dropped (a wrong community, an unknown
    /// UPS name, a report, malformed input, more than in flight), since start.
    package var answered: Int
    package var refused: Int
    /// Notification receivers configured, and informs awaiting acknowledgement now.
    package var receivers: Int
    package var informsPending: Int

    enum CodingKeys: String, CodingKey {
        case listen, ups, answered, refused, receivers
        case engineID = "engine_id"
        case engineBoots = "engine_boots"
        case informsPending = "informs_pending"
    }
}

extension SNMPService {
    /// Datagrams dropped unanswered that no other outcome counts: an answer that would not fit,
    /// more in flight than allowed, too large, dropped by the kernel for a full receive buffer,
    /// a malformed SNMPv3 security part or another security model (`/metrics`' `dropped`, part
    /// of `/health`'s `refused`).
    func dropped(_ agent: SNMPAgentStatistics) -> Int {
        let datagrams = server.statistics
        let usm = self.agent.securityStatistics
        return agent.silentDrops + datagrams.droppedBusy + datagrams.droppedTooLarge + datagrams.droppedByKernel
            + usm.invalidMessages + usm.unknownSecurityModels
    }

    /// What `/health` shows of the agent, under `snmp`.
    package var health: FrontEndHealth? { FrontEndHealth(key: "snmp", value: status) }

    /// The agent now.
    package var status: SNMPHealth {
        let agent = agent.statistics
        let refused = agent.reports + agent.badCommunities + agent.unknownContexts + agent.badVersions + agent.malformed
            + agent.notRequests + dropped(agent)
        return SNMPHealth(listen: server.address?.description ?? listen, ups: source.upsValues().count,
                          engineID: SNMPEngineFile.hex(engine.engineID),
                          engineBoots: Int(engine.boots), answered: agent.answered, refused: refused,
                          receivers: sender?.configuration.receivers.count ?? 0, informsPending: informs?.pendingCount ?? 0)
    }
}

/// The agent on `/metrics`: requests by outcome, USM reports, notifications.
struct SNMPMetrics<C: Clock>: Collector where C.Duration == Duration {
    let service: SNMPService<C>

    private static var requests: MetricDescriptor { MetricDescriptor(
        name: "winpower_exporter_snmp_requests_total",
        help: "SNMP datagrams the agent received, by outcome (answered, report, bad_community, unknown_context, bad_version, malformed, not_request, dropped).",
        type: .counter, labelNames: ["outcome"]) }
    private static var notifications: MetricDescriptor { MetricDescriptor(
        name: "winpower_exporter_snmp_notifications_total",
        help: "SNMP notifications to receivers, by outcome (sent, rate_limited, failed; informs: acknowledged, given_up).",
        type: .counter, labelNames: ["outcome"]) }

    var descriptors: [MetricDescriptor] { [Self.requests, Self.notifications] }

    func collect() -> [MetricFamily] {
        let agent = service.agent.statistics
        var families: [MetricFamily] = []
        if var family = try? Self.requests.makeFamily() {
            let rows: [(String, Int)] = [
                ("answered", agent.answered), ("report", agent.reports), ("bad_community", agent.badCommunities),
                ("unknown_context", agent.unknownContexts), ("bad_version", agent.badVersions), ("malformed", agent.malformed),
                ("not_request", agent.notRequests),
                ("dropped", service.dropped(agent)),
            ]
            for (outcome, value) in rows { try? family.append(labelValues: [outcome], value: Double(value)) }
            families.append(family)
        }
        if var family = try? Self.notifications.makeFamily() {
            let sent = service.sender?.statistics ?? SNMPNotificationSender.Statistics()
            let informs = service.informs?.statistics ?? SNMPInforms<C>.Statistics()
            let rows: [(String, Int)] = [("sent", sent.sent), ("rate_limited", sent.rateLimited), ("failed", sent.failures),
                                         ("acknowledged", informs.acknowledged), ("given_up", informs.failed)]
            for (outcome, value) in rows { try? family.append(labelValues: [outcome], value: Double(value)) }
            families.append(family)
        }
        return families
    }
}

extension FrontEndFactory {
    /// The SNMP agent of `snmp.*` and its notifications (off without `snmp.listen`), its
    /// engine kept in the data directory; made again when `snmp.*` or the low-battery runtime
    /// it reports (`nut.battery_runtime_low`) changes.
    package static var snmp: FrontEndFactory {
        FrontEndFactory(section: "snmp", settings: { SNMPServedSettings(snmp: $0.snmp, lowBattery: $0.nut.batteryRuntimeLow) }) {
            context throws(FrontEndError) in
            try SNMPService<C>.make(context.configuration, publication: context.publication, engineDirectory: context.dataDirectory,
                                    registry: context.registry, version: context.version, clock: context.clock,
                                    wallClock: context.wallClock, logger: context.logger,
                                    batteryHealth: { [frontEnds = context.frontEnds] in frontEnds().batteryHealthMeter })
        }
    }
}

/// What of the configuration the SNMP agent serves.
private struct SNMPServedSettings: Equatable {
    var snmp: ExporterConfiguration.SNMP
    var lowBattery: Duration
}

extension SNMPService: FrontEnd {
    package var name: String { "the SNMP agent" }

    /// Serves requests, and receives the informs' acknowledgements on their own socket when
    /// a receiver wants informs, until cancelled.
    package func run() async throws {
        let (server, informSocket) = (self.server, self.informSocket)
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await server.run() }
            if let informSocket { group.addTask { try await informSocket.run() } }
            try await group.waitForAll()
        }
    }

    package func ready() async throws {
        do {
            _ = try await server.waitUntilListening()
        } catch {
            throw FrontEndError.configuration("snmp.listen: \(error)")
        }
        guard let informSocket else { return }
        do {
            _ = try await informSocket.waitUntilListening()
        } catch {
            throw FrontEndError.configuration("snmp.users_file: the informs' socket: \(error)")
        }
    }
}

extension SystemGroup {
    /// The agent's `system` group of `snmp.system.*`, the host name when `snmp.system.name` is
    /// unset.
    package init(_ snmp: ExporterConfiguration.SNMP, version: String) {
        self.init(description: "wpexporter \(version): WinPower UPSs over the UPS-MIB",
                  contact: snmp.systemContact, name: snmp.systemName ?? Self.hostName(), location: snmp.systemLocation)
    }

    /// This host's name (`gethostname`), `wpexporter` when it has none.
    static func hostName() -> String {
        var buffer = [CChar](repeating: 0, count: 256)
        guard gethostname(&buffer, buffer.count - 1) == 0 else { return "wpexporter" }
        let name = String(cBuffer: buffer)
        return name.isEmpty ? "wpexporter" : name
    }
}
