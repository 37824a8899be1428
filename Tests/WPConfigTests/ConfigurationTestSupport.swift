@testable import WPConfig

/// Builds loader inputs for tests: everything in memory, nothing from the process.
enum TestInputs {
    static let credentials: [String: String] = [
        "WINPOWER_EXPORTER_WINPOWER_BASE_URL": "https://winpower.example.com",
        "WINPOWER_EXPORTER_WINPOWER_USERNAME": "admin",
        "WINPOWER_EXPORTER_WINPOWER_PASSWORD": "hunter2",
    ]

    /// - Parameters:
    ///   - file: Contents of `./config.yaml`, if any.
    ///   - flags: Configuration flags in order.
    ///   - environment: Variables; `credentials` are added unless `withCredentials` is false.
    static func make(file: String? = nil, configPath: String? = nil, flags: [(String, String)] = [],
                     environment: [String: String] = [:], withCredentials: Bool = true,
                     files: [String: String] = [:], modes: [String: Int] = [:],
                     purpose: ConfigurationInputs.Purpose = .server) -> ConfigurationInputs {
        var allFiles = files
        if let file { allFiles["./config.yaml"] = file }
        var env = withCredentials ? credentials : [:]
        env.merge(environment) { _, new in new }
        return ConfigurationInputs(configPath: configPath, flags: flags.map { ConfigurationInputs.Flag($0.0, $0.1) },
                                   environment: env, files: .inMemory(allFiles, modes: modes), purpose: purpose)
    }

    /// The problems loading reports, as descriptions (empty when it succeeds).
    static func problems(_ inputs: ConfigurationInputs) -> [String] {
        do {
            _ = try ConfigurationLoader.load(inputs)
            return []
        } catch {
            return error.problems.map(\.description)
        }
    }
}
