import WPConfig
import WPExporter

/// What the long-running commands do once their input is valid.
///
/// The command-line layer parses and validates; these closures run the exporter. `main`
/// supplies them, so the parser and dispatcher are tested without starting anything. Each
/// hook returns when its command is done (normally on SIGINT/SIGTERM) and throws to fail:
/// a ``UsageError`` exits 64, a `ConfigurationError` 78, anything else 1.
struct RunHooks: Sendable {
    /// `wpexporter server`: run the exporter against the configured WinPower server.
    /// Warnings in the loaded configuration have already been printed to standard error.
    var server: @Sendable (LoadedConfiguration) async throws -> Void
    /// `wpexporter demo`: run the exporter against the embedded simulator; the second
    /// argument is `--servers` (1 for the single-server demo).
    var demo: @Sendable (LoadedConfiguration, Int) async throws -> Void
    /// `wpexporter simulate`: run the simulator alone. Unknown fault names should be thrown
    /// as a ``UsageError``.
    var simulate: @Sendable (SimulatorOptions) async throws -> Void
}

/// Where a command writes: standard output and standard error, injected for tests.
struct TerminalOutput: Sendable {
    /// Writes text to standard output as is.
    var standardOutput: @Sendable (String) -> Void
    /// Writes text to standard error as is.
    var standardError: @Sendable (String) -> Void
    /// Whether standard output is a terminal (the demo then redraws its table in place).
    var standardOutputIsTerminal = false
}
