public import WPConfig
public import WPLogging

/// The process policy for secrets in logs: every password of the configuration is a secret of
/// the log's `Redactor`, in a slot named by its configuration path.
///
/// ``Exporter`` applies it itself: at init to the configuration it is given, and after each
/// reload or ``Exporter/apply(_:)`` that succeeded to the configuration then in effect, on the
/// redactor of ``Exporter/Options/logger``. A service embedding the exporter therefore needs no
/// code of its own for it; one that logs before building the exporter (while it loads the
/// configuration) calls ``register(_:in:)`` on its logger's redactor first, as the command-line
/// tool does.
public enum ExporterSecrets {
    /// Makes every password of `configuration` a secret of `redactor`, each in the slot named
    /// by its configuration path: `winpower.password`, `servers.<name>.password`,
    /// `push.password`, and each secret key of a section a front end declares
    /// (`sections.<key>`). Each call replaces the previous call's values and removes the slots of
    /// servers that are gone, so a rotated password stops being masked and the set of secrets
    /// does not grow.
    ///
    /// ```swift
    /// let redactor = Redactor()
    /// ExporterSecrets.register(loaded.configuration, in: redactor)
    /// let logger = WPLogger(label: "winpower", sink: StreamSink.standardOutput(encoder: JSONLogEncoder()),
///                       redactor: redactor)
    /// ```
    public static func register(_ configuration: ExporterConfiguration, in redactor: Redactor) {
        redactor.setSecret(configuration.winPower.password?.reveal(), named: "winpower.password")
        redactor.setSecret(configuration.push.password?.reveal(), named: "push.password")
        var servers: [String: String] = [:]
        for server in configuration.servers {
            if let password = server.winPower.password { servers["servers.\(server.name).password"] = password.reveal() }
        }
        redactor.replaceSecrets(withPrefix: "servers.", by: servers)
        // The secrets of the sections front ends declare, in slots `sections.<key>`.
        var declared: [String: String] = [:]
        for (key, value) in configuration.declaredSecrets { declared["sections." + key] = value }
        redactor.replaceSecrets(withPrefix: "sections.", by: declared)
    }

    /// `base_url` without user information, query or fragment: how pages, logs and the
    /// start-up line name a WinPower server (empty when it is not a URL).
    public static func target(_ baseURL: String?) -> String {
        ExporterSettings.target(baseURL)
    }

    /// The root logger `configuration.logging` describes, labelled `label`, with every password
    /// of `configuration` a secret of its redactor (``register(_:in:)``), as the command-line
    /// tool makes it.
    ///
    /// ```swift
    /// let logger = try ExporterSecrets.logger(for: loaded.configuration, label: "wpexporter")
    /// ```
    ///
    /// - Parameters:
    ///   - configuration: the configuration whose `logging` section and passwords are used.
    ///   - label: the root logger's label.
    ///   - formatIsDefault: whether `logging.format` was left at its default: a log going to a
    ///     terminal (`isTerminal` of its descriptor) is then written for people (`console`), not
    ///     as JSON.
    ///   - isTerminal: whether a descriptor (1 or 2) is a terminal; never by default.
    /// - Throws: ``SettingError`` naming `logging.file_path` or `logging.output` when the log
    ///   file cannot be opened.
    public static func logger(for configuration: ExporterConfiguration, label: String, formatIsDefault: Bool = false,
                              isTerminal: (Int32) -> Bool = { _ in false }) throws -> WPLogger {
        var logging = configuration.logging
        logging.format = ExporterSettings.logFormat(logging, formatIsDefault: formatIsDefault, isTerminal: isTerminal)
        let redactor = Redactor()
        register(configuration, in: redactor)
        return try SettingError.namingLogFile(logging) {
            try ExporterSettings.logging(logging).makeLogger(label: label, redactor: redactor)
        }
    }
}
