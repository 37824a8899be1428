// docs/embedding-exporter.md (the WinPower exporter inside a service), as written there, wrapped in
// functions. Linux only, like WPExporter. Nothing here runs.
#if os(Linux)
// .product(name: "WPExporter", package: "wpexporter") among the target's dependencies
import WPConfig
import WPExporter
import WPLogging
import WPRuntime

func embedTheExporter(dc1: ExporterConfiguration.WinPower, dc2: ExporterConfiguration.WinPower,
                      logger: WPLogger) throws -> Exporter<ContinuousClock> {
    var configuration = ExporterConfiguration()           // or ConfigurationLoader.load(...) from a file
    configuration.storage.dataDirectory = "/var/lib/myservice/winpower"
    configuration.servers = [ServerEntry(name: "dc1", winPower: dc1), ServerEntry(name: "dc2", winPower: dc2)]

    let exporter = try Exporter(configuration: configuration, logger: logger.child(label: "winpower"))
    return exporter
}

// The second listing of `Exporter`'s documentation (Sources/WPExporter/Exporter.swift): a clock
// of the test's own.
func exporterOnAClockOfItsOwn(configuration: ExporterConfiguration, logger: WPLogger) throws -> Exporter<ManualClock> {
    let exporter = try Exporter(configuration: configuration, options: .init(clock: ManualClock(), logger: logger))
    return exporter
}

func loadAFile() throws -> LoadedConfiguration {
    let schema = Exporter<ContinuousClock>.configurationSchema()
    let loaded = try ConfigurationLoader.load(ConfigurationInputs(configPath: "/etc/myservice/winpower.yaml",
                                                                  files: .system, schema: schema))
    return loaded
}

func addAServer(to exporter: Exporter<ContinuousClock>, dc3: ExporterConfiguration.WinPower) async throws -> String {
    var next = exporter.configuration                     // the configuration in effect
    next.servers.append(ServerEntry(name: "dc3", winPower: dc3))
    let applied = try await exporter.apply(next)          // "servers: added dc3; 2 unchanged"
    return applied.summary
}
#endif
