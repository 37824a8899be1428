import FoundationEssentials
import WPConfig
import WPExporter

extension CommandLineTool {
    /// Runs `wpexporter healthcheck`; any failure, an invalid configuration included, is one
    /// line and exit status 1.
    func healthcheck(_ options: ConfigurationOptions) async throws(HealthcheckFailure) {
        let configuration: ExporterConfiguration
        let web: WebConfiguration?
        do {
            let loaded = try ConfigurationLoader.load(ConfigurationInputs(configPath: options.configPath, flags: options.flags,
                                                                          environment: environment, files: files,
                                                                          purpose: .demo, schema: .tool))
            configuration = loaded.configuration
            web = try loaded.configuration.server.webConfigFile.map { path throws(ConfigurationError) in
                try WebConfiguration.load(path: path, files: files)
            }
        } catch {
            let first = error.problems.first.map { "\($0)" } ?? "\(error)"
            throw .invalidConfiguration(first)
        }
        let target = try Healthcheck.target(server: configuration.server, web: web)
        let line = try await Healthcheck.probe(target)
        output.standardOutput(line + "\n")
    }
}
