import FoundationEssentials
import WPConfig
import WPExporter
import WPHTTPClient

extension CommandLineTool {
    /// Runs `wpexporter healthcheck`; any failure, an invalid configuration included, is one
    /// line and exit status 1.
    func healthcheck(_ options: ConfigurationOptions) async throws(HealthcheckFailure) {
        let configuration: ExporterConfiguration
        let web: WebConfiguration?
        do {
            let loaded = try ConfigurationLoader.load(ConfigurationInputs(configPath: options.configPath, flags: options.flags,
                                                                          environment: environment, files: files,
                                                                          purpose: .demo))
            configuration = loaded.configuration
            web = try loaded.configuration.server.webConfigFile.map { path throws(ConfigurationError) in
                try WebConfiguration.load(path: path, files: files)
            }
        } catch {
            let first = error.problems.first.map { "\($0)" } ?? "\(error)"
            throw .invalidConfiguration(first)
        }
        let target = try Healthcheck.target(server: configuration.server, web: web)
        var clientConfiguration = HTTPClient.Configuration(tls: .skip, userAgent: "wpexporter-healthcheck")
        clientConfiguration.maxThreads = 1
        let line = try await Healthcheck.probe(target, client: HTTPClient(configuration: clientConfiguration))
        output.standardOutput(line + "\n")
    }
}
