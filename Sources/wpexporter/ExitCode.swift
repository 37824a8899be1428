import WPConfig
import WPExporter

/// The process exit status of `wpexporter`, following the BSD `sysexits` convention.
enum ExitCode: Int32, Sendable, Equatable {
    /// The command did what was asked.
    case success = 0
    /// Something failed at run time (network, disk, a component stopped with an error).
    case runtimeFailure = 1
    /// The command line is wrong: unknown command or flag, missing or malformed value.
    case usage = 64
    /// The exporter stopped but could not save its energy totals (`EX_IOERR`): the data
    /// directory was gone and not recreatable, read-only, full, or locked by another process.
    /// The log and standard error say where the last saved totals are.
    case energyNotSaved = 74
    /// The configuration is invalid.
    case configuration = 78

    /// The exit status for an error that ended a command. One pure function so every path
    /// maps errors the same way.
    ///
    /// - Parameter error: The error thrown by parsing, loading or a run hook.
    /// - Returns: `.usage` for ``UsageError``, `.configuration` for `ConfigurationError` and an
    ///   open-files limit too low to serve, `.energyNotSaved` for a shutdown whose final save
    ///   failed, `.runtimeFailure` for anything else.
    static func forError(_ error: any Error) -> ExitCode {
        switch error {
        case is UsageError: return .usage
        case is ConfigurationError: return .configuration
        case ExporterError.openFiles: return .configuration
        case ExporterError.invalidConfiguration: return .configuration
        case ExporterError.energyNotSaved: return .energyNotSaved
        default: return .runtimeFailure
        }
    }
}

/// A command line that cannot be run as written; exits 64.
struct UsageError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The command whose usage was wrong (`server`), or nil for the top level.
    var command: String?
    /// What is wrong, with a suggestion when there is one.
    var message: String

    /// `wpexporter server: message` plus where to find help.
    var description: String {
        let name = command.map { "wpexporter \($0)" } ?? "wpexporter"
        return "\(name): \(message)\nRun '\(name) --help' for usage."
    }
}
