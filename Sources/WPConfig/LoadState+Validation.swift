import FoundationEssentials

/// Checks that involve ranges, several keys, required keys and referenced files.
extension LoadState {
    func setting(_ name: String) -> ConfigSetting? { settings[name] }

    func duration(_ name: String) -> (Duration, ConfigSource)? {
        guard let setting = settings[name], case .duration(let value) = setting.value else { return nil }
        return (value, setting.source)
    }

    func text(_ name: String) -> (String, ConfigSource)? {
        guard let setting = settings[name], case .string(let value) = setting.value else { return nil }
        return (value, setting.source)
    }

    mutating func validate() {
        validateIntegers()
        validateDurations()
        validateTexts()
        validateTariffs()
        readDeclaredSecretFiles()
        validateDeclaredSections()
        validateRequired()
        validateFiles()
        validateServers()
        warnAboutIgnoredKeys()
        warnAboutFilePermissions()
        warnAboutSkippedCertificateChecks()
    }

    /// `energy.tariffs.*` together: a currency needs a flat price, a price its hours, the
    /// periods must not overlap, the time zone must be known (each reported once: a price or
    /// hours that do not parse are reported by ``validateTexts()``).
    private mutating func validateTariffs() {
        for (key, message) in tariffs().problems() {
            if let setting = setting(key), case .string(let text) = setting.value,
               key.hasSuffix("_price") ? ExporterConfiguration.Energy.Tariffs.price(text) == nil
                   : key.hasSuffix("_hours") ? ExporterConfiguration.Energy.Tariffs.hours(text) == nil : false {
                continue
            }
            problem(key, setting(key)?.source, message)
        }
    }

    /// A declared section's secret read from the file its `<key>_file` names, as
    /// `winpower.password_file`, before the section's own rules see it.
    private mutating func readDeclaredSecretFiles() {
        unreadSecrets = []
        for section in inputs.schema.sections {
            for (secret, file) in section.secretFiles {
                guard let (path, source) = text(file) else { continue }
                if let (_, own) = text(secret) {
                    problem(secret, own, "cannot be combined with \(file) (\(source)); set only one")
                    continue
                }
                switch readPassword(path) {
                case .success(let value): settings[secret] = value
                case .failure(let reason):
                    problem(file, source, reason.reason)
                    unreadSecrets.insert(secret)
                }
            }
        }
    }

    /// The rules across the keys of each declared section (its keys' types and ranges are
    /// checked with every key's), each problem at the source of the key it names.
    private mutating func validateDeclaredSections() {
        let declared = declaredSections()
        for section in inputs.schema.sections {
            let values = declared[section.name]?.values ?? [:]
            // A secret whose file could not be read is reported once, at its file key.
            for problem in section.problems(values, declared[section.name]?.lists ?? [:])
            where !(problem.key.map(unreadSecrets.contains) ?? false) {
                self.problem(problem.key, problem.key.flatMap { setting($0)?.source ?? listSource($0) }, problem.message)
            }
        }
    }

    private mutating func validateIntegers() {
        for key in inputs.schema.keys {
            guard case .integer(let range) = key.type, let setting = settings[key.name],
                  case .integer(let value) = setting.value, !range.contains(value) else { continue }
            problem(key.name, setting.source, "\(value) is out of range; must be \(range.lowerBound)–\(range.upperBound)")
        }
        if let setting = settings["storage.file_permissions"], case .integer(let mode) = setting.value, mode > 0o777 {
            problem("storage.file_permissions", setting.source,
                    "0\(String(mode, radix: 8)) is not a file mode; must be at most 0777")
        }
    }

    /// The longest value each duration key accepts. Far above any sensible setting, and far
    /// below what deadline arithmetic could overflow (`Int64` nanoseconds reach 292 years; an
    /// uptime-based deadline plus `2562047h` traps): a typo such as `30h` for `30s` still
    /// passes, `2562047h` does not.
    static let durationMaxima: [(name: String, max: Duration)] = [
        ("server.read_timeout", .seconds(3600)), ("server.write_timeout", .seconds(3600)),
        ("winpower.timeout", .seconds(3600)), ("winpower.api_timeout", .seconds(3600)),
        ("scheduler.graceful_shutdown_timeout", .seconds(3600)),
        ("scheduler.collection_interval", .seconds(86_400)), ("storage.flush_interval", .seconds(86_400)),
        ("push.interval", .seconds(86_400)), ("energy.max_gap", .seconds(7 * 86_400)),
        ("nut.battery_runtime_low", .seconds(86_400)),
    ]

    private mutating func validateDurations() {
        for key in inputs.schema.keys where key.type == .duration {
            if let (value, source) = duration(key.name), let reason = Self.durationProblem(key.name, value) {
                problem(key.name, source, reason)
            }
        }
        if let (api, source) = duration("winpower.api_timeout"), let (total, _) = duration("winpower.timeout"),
           let reason = Self.apiTimeoutProblem(api: api, total: total, totalName: "winpower.timeout") {
            problem("winpower.api_timeout", source, reason)
        }
        if let (gap, source) = duration("energy.max_gap"), let (interval, _) = duration("scheduler.collection_interval"),
           let reason = Self.maxGapProblem(gap: gap, interval: interval, intervalName: "scheduler.collection_interval") {
            problem("energy.max_gap", source, reason)
        }
    }

    /// Why `value` is not a valid setting of the duration key `name` on its own, or nil.
    static func durationProblem(_ name: String, _ value: Duration) -> String? {
        // A key without a maximum of its own (a declared section's) takes 366 days.
        let maximum = durationMaxima.first(where: { $0.name == name })?.max ?? .seconds(366 * 86_400)
        if value > maximum {
            return "\(DurationText.format(value)) is too long; must be at most \(DurationText.format(maximum))"
        }
        let atLeastOneSecond = ["scheduler.collection_interval", "storage.flush_interval", "push.interval", "energy.max_gap"]
        if atLeastOneSecond.contains(name), value < .seconds(1) {
            return "\(DurationText.format(value)) is too short; must be at least 1s"
        }
        let positive = ["server.read_timeout", "server.write_timeout", "winpower.timeout", "winpower.api_timeout",
                        "scheduler.graceful_shutdown_timeout"]
        if positive.contains(name), value <= .zero {
            return "\(DurationText.format(value)) must be greater than 0"
        }
        if name == "winpower.refresh_threshold", value <= .zero || value >= .seconds(3600) {
            return "\(DurationText.format(value)) must be greater than 0 and less than 1h"
        }
        return nil
    }

    /// Why an API timeout longer than the collection's is wrong, or nil.
    static func apiTimeoutProblem(api: Duration, total: Duration, totalName: String) -> String? {
        api > total ? "\(DurationText.format(api)) must not exceed \(totalName) (\(DurationText.format(total)))" : nil
    }

    /// Why a gap limit not above the collection interval is wrong, or nil.
    static func maxGapProblem(gap: Duration, interval: Duration, intervalName: String) -> String? {
        guard gap <= interval, gap >= .seconds(1) else { return nil }
        return "\(DurationText.format(gap)) must be longer than \(intervalName) (\(DurationText.format(interval)))"
    }

    /// Why `text` cannot be sent as a `User-Agent` header, or nil.
    /// An area id goes into the list request's query: WinPower's ids are uuids.
    static func areaIdProblem(_ text: String) -> String? {
        let allowed = Set("0123456789abcdefABCDEF-".unicodeScalars)
        guard !text.isEmpty, text.unicodeScalars.count <= 64, text.unicodeScalars.allSatisfy(allowed.contains) else {
            return "must be a WinPower area id: 1 to 64 hexadecimal digits and '-' (a uuid, e.g. 00000000-0000-0000-0000-000000000000)"
        }
        return nil
    }

    static func userAgentProblem(_ text: String) -> String? {
        if text.isEmpty { return "must not be empty" }
        if text.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) {
            return "contains a control character; a header value cannot hold one"
        }
        return nil
    }

    private mutating func validateTexts() {
        for name in ["winpower.base_url", "push.url"] {
            guard let (url, source) = text(name) else { continue }
            if let problemText = Self.urlProblem(url) {
                problem(name, source, "\"\(URLRedaction.redact(url))\" \(problemText)")
            }
        }
        if let (path, source) = text("server.metrics_path"), let reason = Self.metricsPathProblem(path) {
            problem("server.metrics_path", source, "\(path.debugDescription) \(reason)")
        }
        for name in ["energy.tariffs.flat_price", "energy.tariffs.peak_price", "energy.tariffs.valley_price"] {
            if let (price, source) = text(name), ExporterConfiguration.Energy.Tariffs.price(price) == nil {
                problem(name, source, "\(price.debugDescription) is not a price: a decimal number from 0 to 1000000, at most 6 digits after the point")
            }
        }
        for name in ["energy.tariffs.peak_hours", "energy.tariffs.valley_hours"] {
            if let (hours, source) = text(name), ExporterConfiguration.Energy.Tariffs.hours(hours) == nil {
                problem(name, source, "\(hours.debugDescription) is not HH:MM-HH:MM, comma-separated (e.g. 08:00-11:00,18:00-21:00)")
            }
        }
        if let (agent, source) = text("winpower.user_agent"), let reason = Self.userAgentProblem(agent) {
            problem("winpower.user_agent", source, "\(agent.debugDescription) \(reason)")
        }
        if let (area, source) = text("winpower.area_id"), let reason = Self.areaIdProblem(area) {
            problem("winpower.area_id", source, "\(area.debugDescription) \(reason)")
        }
        if let (password, source) = text("winpower.password"), let reason = Self.passwordProblem(password) {
            problem("winpower.password", source, reason)
        }
        for name in ["server.host", "push.job", "storage.data_dir", "logging.file_path"] {
            if let (value, source) = text(name), value.isEmpty { problem(name, source, "must not be empty") }
        }
        if let (listen, source) = text("nut.listen"), !listen.isEmpty {
            var nut = ExporterConfiguration.NUT()
            nut.listen = listen
            if nut.address == nil {
                problem("nut.listen", source, "\(listen.debugDescription) is not host:port with a port 0–65535 (e.g. :3493 or 127.0.0.1:3493)")
            }
        }
        if let (name, source) = text("nut.default_ups"), name.isEmpty { problem("nut.default_ups", source, "must not be empty") }
        if let (listen, source) = text("snmp.listen"), !listen.isEmpty {
            var snmp = ExporterConfiguration.SNMP()
            snmp.listen = listen
            if snmp.address == nil {
                problem("snmp.listen", source, Self.snmpListenProblem(listen))
            }
            if inputs.purpose == .server, text("snmp.users_file") == nil {
                problem("snmp.listen", source, "needs snmp.users_file: the communities and users that may read the agent")
            }
        }
        if let (name, source) = text("snmp.default_ups"), name.isEmpty { problem("snmp.default_ups", source, "must not be empty") }
        for name in Self.snmpSystemKeys {
            if let (value, source) = text(name), let reason = Self.displayStringProblem(value) {
                problem(name, source, "\(value.debugDescription) \(reason)")
            }
        }
        // `ups` answers for the default device: no other device may be named so (the alias would
        // silently hide it).
        if let (target, _) = text("nut.default_ups"), !target.isEmpty {
            for (id, ups) in nutUPS.sorted(by: { $0.key < $1.key }) {
                guard let name = ups.name, name.lowercased() == "ups", id != target, name != target else { continue }
                let key = "nut.ups.\(id).name"
                problem(key, nutNameSources[id], "\"\(name)\" is the name nut.default_ups gives \(target); name this device otherwise, "
                        + "or make it nut.default_ups")
            }
        }
    }

    /// The keys whose values the SNMP agent serves as `system` DisplayStrings.
    static let snmpSystemKeys = ["snmp.system.name", "snmp.system.contact", "snmp.system.location"]

    /// Why `text` cannot be served as an SNMP DisplayString (RFC 2579: at most 255 octets of
    /// printable text), or nil.
    static func displayStringProblem(_ text: String) -> String? {
        if text.unicodeScalars.contains(where: { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) }) {
            return "contains a control character; an SNMP DisplayString cannot hold one"
        }
        if text.utf8.count > 255 { return "is \(text.utf8.count) bytes long; an SNMP DisplayString holds at most 255" }
        return nil
    }

    static func snmpListenProblem(_ listen: String) -> String {
        "\(listen.debugDescription) is not host[:port] with a port 0–65535 (e.g. :161, 127.0.0.1:1161 or [::1]:161)"
    }

    /// Paths of the exporter's other endpoints, which `server.metrics_path` must not take.
    static let reservedPaths = ["/", "/health", "/-/healthy", "/-/ready", "/-/reload", "/probe", "/targets",
                                "/status", "/status.json", "/status/ups", "/status/outages.csv", "/status/outages.json",
                                "/status/history.csv", "/status/history.json", "/status/events.csv", "/status/events.json",
                                "/status/style.css", "/status/status.js"]

    /// Why `path` cannot serve `/metrics`, or nil when it can: it must start with '/', consist
    /// of URL path characters (RFC 3986 `pchar` and '/'), and not be another endpoint's path.
    static func metricsPathProblem(_ path: String) -> String? {
        guard path.hasPrefix("/") else { return "must start with '/'" }
        if reservedPaths.contains(path) {
            return "is the path of another endpoint; must differ from \(reservedPaths.joined(separator: ", "))"
        }
        let allowed = Set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._~!$&'()*+,;=:@%/".unicodeScalars)
        if let bad = path.unicodeScalars.first(where: { !allowed.contains($0) }) {
            return "contains \(String(bad).debugDescription); a path may hold letters, digits, '/' and -._~!$&'()*+,;=:@%"
        }
        return nil
    }

    /// Why `text` is not an http(s) URL with a host, or nil when it is one.
    static func urlProblem(_ text: String) -> String? {
        guard let components = URLComponents(string: text), let scheme = components.scheme?.lowercased() else {
            return "is not a URL; must look like https://host[:port]"
        }
        // `host:port` parses as the scheme `host`: say what is missing, not what it seems to be.
        guard text.contains("://") else {
            return "has no scheme; must look like https://host[:port]"
        }
        guard scheme == "http" || scheme == "https" else {
            return "has scheme \"\(scheme)\"; must be http or https"
        }
        guard let host = components.host, !host.isEmpty else {
            return "has no host; must look like https://host[:port]"
        }
        if let port = components.port, !(1...65535).contains(port) {
            return "has port \(port); must be 1–65535"
        }
        return nil
    }

    private mutating func validateRequired() {
        let passwordFile = text("winpower.password_file")
        if let (_, source) = text("winpower.password"), let (_, fileSource) = passwordFile {
            problem("winpower.password", source,
                    "cannot be combined with winpower.password_file (\(fileSource)); set only one")
        }
        // With `servers`, `winpower` only holds defaults; each entry is checked on its own. After
        // a syntax error the file's settings are unknown: its error alone is reported.
        guard inputs.purpose == .server, serverDrafts.isEmpty, !fileUnparsed else { return }
        for name in ["winpower.base_url", "winpower.username", "winpower.password"] {
            if name == "winpower.password", passwordFile != nil { continue }
            guard text(name)?.0.isEmpty ?? true, let key = ConfigKey.named(name) else { continue }
            let also = name == "winpower.password" ? " (or winpower.password_file)" : ""
            problem(name, nil, "is required by `server`\(also); set it in the configuration file, with "
                    + "\(key.environmentVariable) or with \(key.flag)")
        }
    }

    private mutating func validateFiles() {
        if inputs.purpose == .server, let (path, source) = text("storage.data_dir"),
           let reason = inputs.files.directoryProblem(path) {
            problem("storage.data_dir", source, "\"\(path)\" \(reason); the energy state is kept in this directory")
        }
        // `demo` replaces the WinPower settings with its simulator's: the password file is not read.
        if inputs.purpose == .server, let (path, source) = text("winpower.password_file") {
            switch readPassword(path) {
            case .success(let password): settings["winpower.password"] = password
            case .failure(let reason): problem("winpower.password_file", source, reason.reason)
            }
        }
        // The users file is read again when the NUT server starts; here every problem is listed
        // with its position, before anything starts.
        if inputs.purpose == .server, let (path, source) = text("nut.users_file") {
            do {
                let users = try NUTUsersFile.load(path: path, files: inputs.files)
                // As upsd warns about a readable upsd.users: plain passwords others can read.
                if users.users.contains(where: { $0.password != nil }), let readable = inputs.files.readableByOthers(path) {
                    warning("nut.users_file", source, "\"\(path)\" holds plain passwords and is \(readable); run chmod 600 \(path), or use password_hash")
                }
            } catch {
                problems += error.problems
            }
        }
        // As the NUT users file: every problem listed with its position before anything starts.
        if inputs.purpose == .server, let (path, source) = text("snmp.users_file") {
            do {
                _ = try SNMPUsersFile.load(path: path, files: inputs.files)
                if let readable = inputs.files.readableByOthers(path) {
                    warning("snmp.users_file", source, "\"\(path)\" holds communities and passwords and is \(readable); run chmod 600 \(path)")
                }
            } catch {
                problems += error.problems
            }
        }
        for name in ["winpower.ca_file", "server.web_config_file"] + inputs.schema.sections.flatMap(\.readableFiles) {
            guard let (path, source) = text(name) else { continue }
            if case .failure(let error) = inputs.files.read(path) {
                problem(name, source, "\"\(path)\" " + Self.describe(error))
            }
        }
        for name in inputs.schema.sections.flatMap(\.keyFiles) {
            guard let (path, source) = text(name), let readable = inputs.files.readableByOthers(path) else { continue }
            warning(name, source, "\"\(path)\" holds a private key and is \(readable); run chmod 600 \(path)")
        }
    }

    /// The most bytes a password, and a password file, may hold (4 KiB): far more than any
    /// password, and small enough that reading, storing and masking one costs nothing. It is
    /// also the longest secret the log redactor accepts.
    static let passwordLimit = 4096

    /// Why a password of `password` is not acceptable (too long), or nil. Never shows it.
    static func passwordProblem(_ password: String) -> String? {
        let length = password.utf8.count
        guard length > passwordLimit else { return nil }
        return "is \(length) bytes long; a password may hold at most \(passwordLimit) bytes"
    }

    /// The password held by the file at `path` (one trailing newline removed), or why there is
    /// none. At most ``passwordLimit`` + 1 bytes are read: a larger file is refused without being
    /// read whole.
    func readPassword(_ path: String) -> Result<ConfigSetting, ConfigValueError> {
        switch inputs.files.readPrefix(path, Self.passwordLimit + 1) {
        case .success(let bytes):
            if bytes.count > Self.passwordLimit {
                return .failure(ConfigValueError(
                    "\"\(path)\" is larger than \(Self.passwordLimit) bytes; a password file holds only the password"))
            }
            guard var secret = String(validating: bytes, as: UTF8.self) else {
                return .failure(ConfigValueError("\"\(path)\" cannot be read: not UTF-8 text"))
            }
            if secret.hasSuffix("\n") { secret.removeLast() }
            if secret.hasSuffix("\r") { secret.removeLast() }
            if secret.isEmpty { return .failure(ConfigValueError("\"\(path)\" is empty")) }
            return .success(ConfigSetting(value: .string(secret), source: .file(path: path, position: nil)))
        case .failure(let error):
            return .failure(ConfigValueError("\"\(path)\" " + Self.describe(error)))
        }
    }

    static func describe(_ error: FileAccessError) -> String {
        switch error {
        case .notFound: return "does not exist"
        case .unreadable(let reason): return "cannot be read: \(reason)"
        }
    }

    private mutating func warnAboutIgnoredKeys() {
        for key in inputs.schema.keys {
            guard let reason = key.ignoredBecause, let setting = settings[key.name],
                  setting.source != .defaultValue else { continue }
            warning(key.name, setting.source, "has no effect: \(reason)")
        }
    }

    private mutating func warnAboutFilePermissions() {
        guard let path = filePath, let readable = inputs.files.readableByOthers(path) else { return }
        let listed = listDrafts.keys.sorted().flatMap { listDrafts[$0] ?? [] }.flatMap(\.inlineSecrets)
        for name in inputs.schema.keys.filter(\.isSecret).map(\.name).filter(fileKeys.contains) + listed {
            warning(name, .file(path: path, position: nil),
                    "the file holds a password and is \(readable); run chmod 600 \(path)")
        }
    }

    /// `skip_ssl_verify: true` is allowed (a WinPower server's self-signed certificate is
    /// common) but never silent: one warning per server that uses it, naming the entry.
    private mutating func warnAboutSkippedCertificateChecks() {
        let reason = "is true: the WinPower server's TLS certificate is not checked, so anyone on the network path "
            + "can pose as the server, read its password and forge readings; set ca_file to its certificate instead"
        let key = "winpower.skip_ssl_verify"
        if serverDrafts.isEmpty {
            if let setting = settings[key], case .boolean(true) = setting.value { warning(key, setting.source, reason) }
            return
        }
        for draft in serverDrafts where !draft.isMalformed {
            guard let setting = draft.resolved[key], case .boolean(true) = setting.value else { continue }
            warning(draft.path("skip_ssl_verify"), setting.source, reason)
        }
    }
}
