public import WPConfig
import WPFrontEnd
public import WPMetrics
public import WPServer

/// Why an ``Exporter`` could not be built, or (``energyNotSaved(reason:lastSaved:)``) why its
/// run ended with the energy totals unsaved. Each case names the configuration key at fault
/// the way `check-config` does, so the message tells an operator what to change.
public enum ExporterError: Error, Sendable, CustomStringConvertible {
    /// The data directory (`storage.data_dir`) is locked by another process or unusable, or
    /// its state could not be loaded.
    case dataDirectory(any Error)
    /// The WinPower client of a server could not be made (`server` is the `servers` entry's
    /// name, empty for `winpower`).
    case client(server: String, reason: String)
    /// The exporter's own metrics could not be registered (fixed names: not expected).
    case metrics(MetricsError)
    /// The exporter's own HTTP listener cannot serve (`server.host`:`server.port` taken or not
    /// an address of this host): the server's error, described naming the key.
    case http(ServerError)
    /// A front end cannot be set up or cannot serve: `section` is its configuration section
    /// (`nut`, `snmp`, `push`, or an embedder's front end's), `reason` names the key at fault
    /// (`nut.users_file: …`, `snmp.listen: address in use`, `push.url: …`).
    case frontEnd(section: String, reason: String)
    /// The open-files limit is too low to serve at all (a configuration error of the process:
    /// the command-line tool exits 78).
    case openFiles(DescriptorBudgetError)
    /// The configuration breaks the rules a configuration file is checked against
    /// (`ExporterConfiguration.problems()`): every problem, each named by its key.
    case invalidConfiguration([ConfigDiagnostic])

    /// `the configuration is not valid (N problems):` and one indented line per problem.
    static func describe(_ problems: [ConfigDiagnostic]) -> String {
        let count = problems.count == 1 ? "1 problem" : "\(problems.count) problems"
        return "the configuration is not valid (\(count)):" + problems.map { "\n  \($0)" }.joined()
    }
    /// The exporter stopped, but its final save of the energy totals failed (`reason`): the
    /// totals since the last successful save are lost. `lastSaved` says where the last saved
    /// totals are (`SavedTotals`). The command-line tool exits 74.
    case energyNotSaved(reason: String, lastSaved: String)

    /// What failed, named by the configuration key or section involved, and why: the message the
    /// command-line tool prints.
    public var description: String {
        switch self {
        case .invalidConfiguration(let problems):
            return Self.describe(problems)
        case .dataDirectory(let error):
            let text = "\(error)"
            return text.contains("storage.data_dir") ? text : "storage.data_dir: \(text)"
        case .client(let server, let reason):
            let prefix = "servers[\(server)]"
            return server.isEmpty || reason.hasPrefix(prefix) ? reason : "\(prefix): \(reason)"
        case .metrics(let error):
            return "registering the exporter's own metrics: \(error)"
        case .http(let error):
            if case .bind = error { return "server.port: \(error) (server.host, server.port)" }
            return "the HTTP server: \(error)"
        case .frontEnd(let section, let reason):
            return reason.hasPrefix(section) || reason.hasPrefix("storage.") ? reason : "\(section): \(reason)"
        case .openFiles(let error):
            return error.description
        case .energyNotSaved(let reason, let lastSaved):
            return "storage.data_dir: energy totals not saved on shutdown: \(reason); \(lastSaved)"
        }
    }
}

extension ExporterError {
    /// A front end's error as the error of its configuration section.
    init(_ error: FrontEndError, section: String) {
        switch error {
        case .configuration(let reason): self = .frontEnd(section: section, reason: reason)
        case .metrics(let error): self = .metrics(error)
        }
    }
}

/// Why ``Exporter/apply(_:)`` refused a configuration: nothing of it was applied and the
/// running configuration is kept.
public enum ReloadRefusal: Error, Sendable, CustomStringConvertible {
    /// The exporter was built without a way to load its configuration again
    /// (``Exporter/Options/reload`` is `nil`).
    case unavailable
    /// An `energy_from` cannot be honoured (one problem per entry).
    case energyFrom(ReloadRenames.Refusal)
    /// The WinPower client of a new or changed server could not be made.
    case client(server: String, reason: String)
    /// The front end of a changed section could not be made again (`section`: its
    /// configuration section; `reason` names the key at fault); the running one is kept.
    case frontEnd(section: String, reason: String)
    /// The configuration breaks the rules a configuration file is checked against
    /// (`ExporterConfiguration.problems()`): every problem, each named by its key.
    case invalid([ConfigDiagnostic])

    /// Why the configuration was refused, as the log and the `POST /-/reload` answer say it.
    public var description: String {
        switch self {
        case .invalid(let problems): return ExporterError.describe(problems)
        case .unavailable: return "this exporter was started without a configuration to reload"
        case .energyFrom(let refusal): return refusal.description
        case .client(let server, let reason): return ExporterError.client(server: server, reason: reason).description
        case .frontEnd(let section, let reason): return ExporterError.frontEnd(section: section, reason: reason).description
        }
    }
}
