// The examples of docs/simulator.md, docs/energy.md and docs/winpower-client.md, as written
// there, wrapped in functions. Linux only, like the libraries they use. Nothing here runs.
#if os(Linux)
import FoundationEssentials
import WPClient
import WPEnergy
import WPLogging
import WPSimulator
import WPStorage

// docs/simulator.md
func simulatorInProcess(logger: WPLogger) {
    var configuration = WinPowerSimulator.Configuration()
    configuration.deviceCount = 50
    let simulator = WinPowerSimulator(configuration: configuration, clock: ContinuousClock(), logger: logger)
    simulator.enable(.slow)          // switch faults at run time
    print(simulator.counters.logins) // and observe
}

func simulatorOnASocket() async throws {
    let server = SimulatorServer(simulator: WinPowerSimulator(), host: "127.0.0.1", port: 0)
    let address = try await server.start()     // port 0 picks a free port: address.port
    try await server.setUnreachable(true)      // the listening socket is closed: connections refused
    try await server.setUnreachable(false)     // listening again on the same port
    await server.stop()                        // closes every connection; idempotent
    _ = address
}

func simulatorFleet(clock: ContinuousClock) async throws {
    var configuration = SimulatorFleet.Configuration(servers: 10, devicesPerServer: 100)
    configuration.faults = [0: .down, 1: .down, 2: .down, 3: .hang, 4: .rejectsPassword]
    configuration.server.username = "admin"          // settings shared by every server
    configuration.server.password = "s3cr3t"
    let fleet = SimulatorFleet(configuration: configuration, clock: clock)
    let urls = try await fleet.start()                // base URLs in index order
    let simulator = fleet.members[5].simulator        // nil for down and hang
    await fleet.stop()                                // releases every port; idempotent
    _ = (urls, simulator)
}

// docs/energy.md
func energyMeterLifecycle(storageConfiguration: StorageConfiguration, log: WPLogger, devices: [Device]) async throws {
    // startup
    let store = try FileEnergyStore(configuration: storageConfiguration, logger: log)
    let meter = try EnergyMeter.open(configuration: EnergyConfiguration(maxGap: .seconds(60)),
                                     persistence: storageConfiguration.persistencePolicy,
                                     store: store, clock: ContinuousClock(), logger: log)
    // meter.loaded.source / .quarantined / .legacyImport describe the startup load;
    // meter.status.stateWasReset is the "totals were lost" flag to export.

    // every cycle, once, with all devices
    let report = meter.record(devices.map {
        EnergySample(deviceID: $0.id, watts: $0.realtime.loadTotalWatt, connected: $0.connected != false)
    })
    // report.totals[id]?.joules / .wattHours / .gaps; report.saveRequested
    await meter.saved(report, timeout: .milliseconds(250)) // publish once on disk (bounded)
    let served = meter.servedTotals(keyPrefix: "")      // what to expose: never above the saved

    // shutdown
    try meter.flush()
    store.close()
    _ = served
}

// docs/winpower-client.md
func winPowerClient(secret: String, logger: WPLogger) async throws -> DeviceReadout {
    var configuration = WinPowerHTTPClient.Configuration(
        baseURL: URL(string: "https://winpower.example.com:8081")!, username: "admin", password: secret)
    configuration.caFile = "/etc/wpexporter/winpower-ca.pem"     // or skipSSLVerify = true
    let client = WinPowerHTTPClient(configuration: configuration, logger: logger.child(label: "client"))
    let readout = try await client.fetchDevices()
    return readout
}
#endif
