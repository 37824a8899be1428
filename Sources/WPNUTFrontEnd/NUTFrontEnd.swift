import FoundationEssentials
package import WPEnergy
package import WPConfig
package import WPFrontEnd
package import WPLogging
package import WPMetrics
package import WPNUT
package import WPServer

/// The NUT server of `nut.*` (docs/nut.md): upsd's network protocol over the fleet's UPSs,
/// named by ``NUTFleetSource``.
package final class NUTFrontEnd<C: Clock>: FrontEnd where C.Duration == Duration {
    package let name = "the NUT server"
    /// Makes the listener: a `LineServer` on its socket, or a test's or an embedder's fake that
    /// serves without binding anything (handed the `NUTProtocol`, it can open sessions on it).
    package typealias MakeListener = @Sendable (_ configuration: LineServer<NUTProtocol>.Configuration, _ protocol: NUTProtocol,
                                                _ logger: WPLogger) -> any Listener<LineServerStatistics>

    /// The listener (a socket, or a test's fake).
    package let server: any Listener<LineServerStatistics>
    /// Where its users' bcrypt hashes are checked.
    package let passwords: BCryptPool
    private let listen: String

    private init(server: any Listener<LineServerStatistics>, passwords: BCryptPool, listen: String) {
        self.server = server
        self.passwords = passwords
        self.listen = listen
    }

    /// The NUT server of `configuration.nut`, or `nil` when `nut.listen` is not set.
    ///
    /// - Parameters:
    ///   - publication: the fleet's publications: the UPSs, their readings and names
    ///     (``NUTFleetSource``, subscribed to it).
    ///   - tls: the certificate `STARTTLS` offers (the web configuration's), if any.
    ///   - maxConnections: the connection cap fitted to the open-files limit, if lower.
    ///   - passwords: the threads that check bcrypt hashes, shared with the HTTP listener
    ///     (the web configuration's); `nil`: threads of its own.
    ///   - version: the exporter's version, served as the driver's and the server's.
    ///   - makeListener: makes the listener (``MakeListener``).
    /// - Throws: ``FrontEndError/configuration(_:)`` naming `nut.users_file`, or
    ///   ``FrontEndError/metrics(_:)``.
    package static func make(_ nut: ExporterConfiguration.NUT, publication: some FleetPublishing<C>, tls: WPTLSConfiguration?,
                             maxConnections: Int?, passwords: BCryptPool?, registry: MetricRegistry, version: String,
                             makeListener: MakeListener, logger: WPLogger,
                             batteryHealth: @escaping @Sendable () -> BatteryHealthMeter? = { nil })
        throws(FrontEndError) -> NUTFrontEnd? {
        guard let address = nut.address else { return nil }
        let names = NUTFleetSource(publication: publication, settings: NUTBridgeSettings(nut), version: version,
                                   batteryHealth: batteryHealth)
        var accounts: [NUTAccount] = []
        if let path = nut.usersFile {
            do {
                accounts = try NUTUsersFile.load(path: path, files: .system).users.map { user in
                    NUTAccount(name: user.name,
                               secret: user.passwordHash.map(NUTAccount.Secret.bcrypt) ?? .plain(user.password?.reveal() ?? ""),
                               role: user.upsmon.flatMap(NUTRole.init(rawValue:)))
                }
            } catch {
                throw .configuration("\(error)")
            }
        }
        let logger = logger.component("nut")
        let pool = passwords ?? BCryptPool()
        let state = NUTServerState { fsd in
            // upsd logs this too: every host on the UPS is about to power off, so say who asked.
            logger.warn(fsd.first ? "FSD set: forced shutdown of every host on the UPS" : "FSD set again",
                        ["ups": .string(fsd.ups), "user": .string(fsd.user), "client": .string(fsd.client)])
        }
        let commands: CounterVec
        do {
            commands = try NUTServerMetrics.commands(in: registry)
        } catch {
            throw .metrics(error)
        }
        let environment = NUTSession.Environment(
            data: names,
            users: NUTUserTable(accounts, pool: pool), state: state, version: version,
            requireLogin: !nut.allowAnonymous, tlsAvailable: tls != nil, failures: AuthFailureTracker(),
            // Both label values come from fixed sets: the error path is unreachable.
            observe: { command, result in try? commands.labels(command, result).increment() })
        var configuration = LineServer<NUTProtocol>.Configuration(host: address.host, port: address.port,
                                                                  maxConnections: maxConnections ?? nut.maxConnections)
        configuration.tls = tls
        let server = makeListener(configuration, NUTProtocol(environment: environment), logger)
        do throws(MetricsError) {  // typed: Swift 6.0 infers `any Error` here
            try registry.register(NUTServerMetrics(server: server, state: state))
        } catch {
            throw .metrics(error)
        }
        return NUTFrontEnd(server: server, passwords: pool, listen: nut.listen ?? "")
    }

    package func run() async throws { try await server.run() }

    package func ready() async throws {
        do {
            _ = try await server.waitUntilListening()
        } catch {
            // The message alone reads like the HTTP port's: name the key.
            throw FrontEndError.configuration("nut.listen: \(error)")
        }
    }

    /// What `/health` shows of the NUT server, under `nut`.
    package var health: FrontEndHealth? { FrontEndHealth(key: "nut", value: status) }

    /// The NUT server now.
    package var status: NUTHealth { NUTHealth(listen: server.address?.description ?? listen, statistics: server.statistics) }
}

extension FrontEndFactory {
    /// The NUT server of `nut.*` (off without `nut.listen`), its listener made by
    /// `makeListener`; made again when `nut.*` changes.
    package static func nut(makeListener: @escaping NUTFrontEnd<C>.MakeListener) -> FrontEndFactory {
        FrontEndFactory(section: "nut", settings: { $0.nut },
                        connections: { $0.nut.address == nil ? nil : $0.nut.maxConnections }) { context throws(FrontEndError) in
            try NUTFrontEnd<C>.make(context.configuration.nut, publication: context.publication, tls: context.tls,
                                    maxConnections: context.connections, passwords: context.passwords,
                                    registry: context.registry, version: context.version,
                                    makeListener: makeListener, logger: context.logger,
                                    batteryHealth: { [frontEnds = context.frontEnds] in frontEnds().batteryHealthMeter })
        }
    }
}

/// The NUT server in `/health`: where it listens (the configured `nut.listen` until it is
/// bound), connections open now and accepted since start.
package struct NUTHealth: Codable, Sendable, Equatable {
    package var listen: String
    package var connections: Int
    package var accepted: Int

    package init(listen: String, statistics: LineServerStatistics) {
        self.listen = listen
        connections = statistics.open
        accepted = statistics.accepted
    }
}
