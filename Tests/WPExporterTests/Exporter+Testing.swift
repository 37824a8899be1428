import FoundationEssentials
import Synchronization
import WPClient
import WPConfig
import WPFrontEnd
import WPExporter
import WPLogging
import WPWallClock

extension Exporter {
    /// An exporter whose servers take `clients` in configuration order (one for a
    /// `winpower`-only configuration); a server a reload adds or changes gets `clientFactory`'s,
    /// or none (the reload is refused naming it).
    convenience init(configuration: ExporterConfiguration, clients: [any WinPowerClient], clock: C,
                     wallClock: WallClock, logger: WPLogger, webSecurity: WebSecurity = .none,
                     reload: ConfigReloader.Load? = nil, clientFactory: ClientFactory? = nil,
                     mergeSpacing: Duration = .seconds(1), componentLabels: ComponentLabels = .nested,
                     energyStorage: EnergyStorage = .dataDirectory, listeners: Listeners = .sockets,
                     frontEnds: [FrontEndFactory<C>] = []) throws {
        let initial = Mutex(clients)
        let makeClient: ClientFactory = { entry in
            if let client = initial.withLock({ $0.isEmpty ? nil : $0.removeFirst() }) { return client }
            guard let clientFactory else { throw TestClientsExhausted(server: entry.name) }
            return try clientFactory(entry)
        }
        var options = Options(clock: clock, logger: logger, makeClient: makeClient, wallClock: wallClock,
                              webSecurity: webSecurity, reload: reload, mergeSpacing: mergeSpacing)
        options.componentLabels = componentLabels
        options.energyStorage = energyStorage
        options.listeners = listeners
        options.frontEnds = frontEnds
        // The served energy is the saved one: a loaded machine's fsync must not decide a test.
        options.energySaveWait = .seconds(60)
        try self.init(configuration: configuration, options: options)
    }

    /// A `winpower`-only exporter reading from `client`.
    convenience init(configuration: ExporterConfiguration, client: any WinPowerClient, clock: C,
                     wallClock: WallClock, logger: WPLogger, webSecurity: WebSecurity = .none,
                     reload: ConfigReloader.Load? = nil, componentLabels: ComponentLabels = .nested,
                     energyStorage: EnergyStorage = .dataDirectory, listeners: Listeners = .sockets) throws {
        try self.init(configuration: configuration, clients: [client], clock: clock, wallClock: wallClock, logger: logger,
                      webSecurity: webSecurity, reload: reload, componentLabels: componentLabels, energyStorage: energyStorage,
                      listeners: listeners)
    }
}

/// A test exporter was given fewer clients than it has servers.
struct TestClientsExhausted: Error, CustomStringConvertible {
    var server: String
    var description: String { "no client for server \(server.debugDescription)" }
}
