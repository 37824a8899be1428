/// The rules a configuration file is checked against, applied to a configuration built in code.
///
/// ``ConfigurationLoader`` checks each value where it was read (file:line:column, environment
/// variable, flag) and reports it there; an embedder that fills an ``ExporterConfiguration``
/// itself gets the same rules, with the same messages, through ``problems()``, each named by
/// its key (`scheduler.collection_interval`, `servers[1].name`). The exporter runs it before it
/// starts and before it applies a configuration.
extension ExporterConfiguration {
    /// Every problem of this configuration, in key order within each section; empty when it is
    /// valid. Files are not read (a `ca_file` or `password_file` that cannot be read is found
    /// when the exporter uses it).
    ///
    /// ```swift
    /// var configuration = ExporterConfiguration()
    /// configuration.scheduler.collectionInterval = .zero
    /// for problem in configuration.problems() { print(problem) }
    /// // scheduler.collection_interval: 0s is too short; must be at least 1s
    /// ```
    public func problems() -> [ConfigDiagnostic] {
        var check = TypedCheck()
        check.integer("server.port", server.port)
        check.notEmpty("server.host", server.host)
        check.duration("server.read_timeout", server.readTimeout)
        check.duration("server.write_timeout", server.writeTimeout)
        if let reason = LoadState.metricsPathProblem(server.metricsPath) {
            check.problem("server.metrics_path", "\(server.metricsPath.debugDescription) \(reason)")
        }
        if servers.isEmpty {
            check.winPower(winPower, prefix: "winpower.", requireLogin: true)
            check.intervalAndGap(scheduler.collectionInterval, name: "scheduler.collection_interval", gap: energy.maxGap)
        } else {
            check.winPower(winPower, prefix: "winpower.", requireLogin: false)
            check.intervalAndGap(scheduler.collectionInterval, name: "scheduler.collection_interval", gap: energy.maxGap)
            check.servers(servers)
        }
        check.notEmpty("storage.data_dir", storage.dataDirectory)
        if !(0...0o777).contains(storage.filePermissions) {
            check.problem("storage.file_permissions", "0\(String(storage.filePermissions, radix: 8)) is not a file mode; must be 0–0777")
        }
        check.duration("storage.flush_interval", storage.flushInterval)
        check.duration("scheduler.graceful_shutdown_timeout", scheduler.gracefulShutdownTimeout)
        if let watts = energy.maxPowerWatts { check.integer("energy.max_power_watts", watts) }
        for problem in energy.tariffs.problems() { check.problem(problem.key, problem.message) }
        check.notEmpty("logging.file_path", logging.filePath)
        check.integer("logging.max_size", logging.maxSize)
        check.integer("logging.max_age", logging.maxAge)
        check.integer("logging.max_backups", logging.maxBackups)
        if let url = push.url { check.url("push.url", url) }
        check.duration("push.interval", push.interval)
        check.notEmpty("push.job", push.job)
        if let listen = nut.listen, !listen.isEmpty, nut.address == nil {
            check.problem("nut.listen", "\(listen.debugDescription) is not host:port with a port 0–65535 (e.g. :3493 or 127.0.0.1:3493)")
        }
        if let name = nut.defaultUPS, name.isEmpty { check.problem("nut.default_ups", "must not be empty") }
        if let listen = snmp.listen, !listen.isEmpty {
            if snmp.address == nil { check.problem("snmp.listen", LoadState.snmpListenProblem(listen)) }
            if snmp.usersFile == nil { check.problem("snmp.listen", "needs snmp.users_file: the communities and users that may read the agent") }
        }
        if let name = snmp.defaultUPS, name.isEmpty { check.problem("snmp.default_ups", "must not be empty") }
        for (name, value) in zip(LoadState.snmpSystemKeys, [snmp.systemName ?? "", snmp.systemContact, snmp.systemLocation]) {
            if let reason = LoadState.displayStringProblem(value) { check.problem(name, "\(value.debugDescription) \(reason)") }
        }
        check.integer("nut.battery_charge_low", nut.batteryChargeLow)
        check.duration("nut.battery_runtime_low", nut.batteryRuntimeLow)
        check.integer("nut.max_connections", nut.maxConnections)
        for (id, ups) in nut.ups.sorted(by: { $0.key < $1.key }) {
            if let name = ups.name, let reason = LoadState.nutNameProblem(name) {
                check.problem("nut.ups.\(id).name", "\(name.debugDescription) \(reason)")
            }
            if let low = ups.batteryChargeLow { check.integer("nut.battery_charge_low", low, shown: "nut.ups.\(id).battery_charge_low") }
            if let low = ups.batteryRuntimeLow { check.duration("nut.battery_runtime_low", low, shown: "nut.ups.\(id).battery_runtime_low") }
        }
        for name in declaredSections.keys.sorted() { check.problems += declaredSections[name]?.problems() ?? [] }
        return check.problems
    }
}

/// Applies the loader's rules (``LoadState``'s static checks and ``ConfigKey``'s ranges) to
/// typed values.
private struct TypedCheck {
    var problems: [ConfigDiagnostic] = []

    mutating func problem(_ key: String, _ message: String) {
        problems.append(ConfigDiagnostic(key: key, source: nil, message: message))
    }

    /// `value` against the range of the integer key `name`; reported as `shown`.
    mutating func integer(_ name: String, _ value: Int, shown: String? = nil) {
        guard let key = ConfigKey.all.first(where: { $0.name == name }), case .integer(let range) = key.type,
              !range.contains(value) else { return }
        problem(shown ?? name, "\(value) is out of range; must be \(range.lowerBound)–\(range.upperBound)")
    }

    mutating func duration(_ name: String, _ value: Duration, shown: String? = nil) {
        if let reason = LoadState.durationProblem(name, value) { problem(shown ?? name, reason) }
    }

    mutating func notEmpty(_ name: String, _ value: String) {
        if value.isEmpty { problem(name, "must not be empty") }
    }

    mutating func url(_ name: String, _ text: String) {
        if let reason = LoadState.urlProblem(text) { problem(name, "\"\(URLRedaction.redact(text))\" \(reason)") }
    }

    mutating func intervalAndGap(_ interval: Duration, name: String, gap: Duration) {
        duration("energy.max_gap", gap)
        if let reason = LoadState.durationProblem("scheduler.collection_interval", interval) {
            problem(name, reason)
        } else if let reason = LoadState.maxGapProblem(gap: gap, interval: interval, intervalName: name) {
            problem("energy.max_gap", reason)
        }
    }

    /// The `winpower` keys of one server, named `prefix` + key (`winpower.timeout`,
    /// `servers[0].timeout`); with `requireLogin`, the URL and credentials must be there.
    mutating func winPower(_ winPower: ExporterConfiguration.WinPower, prefix: String, requireLogin: Bool) {
        if let url = winPower.baseURL, !url.isEmpty {
            self.url(prefix + "base_url", url)
        } else if requireLogin {
            problem(prefix + "base_url", "is required")
        }
        if requireLogin, winPower.username?.isEmpty ?? true { problem(prefix + "username", "is required") }
        // A password read from `password_file` is in `password` too: both set is no conflict here.
        if let password = winPower.password, !password.isEmpty {
            if let reason = LoadState.passwordProblem(password.reveal()) { problem(prefix + "password", reason) }
        } else if requireLogin, winPower.passwordFile == nil {
            problem(prefix + "password", "is required (or password_file)")
        }
        duration("winpower.timeout", winPower.timeout, shown: prefix + "timeout")
        duration("winpower.api_timeout", winPower.apiTimeout, shown: prefix + "api_timeout")
        duration("winpower.refresh_threshold", winPower.refreshThreshold, shown: prefix + "refresh_threshold")
        if LoadState.durationProblem("winpower.timeout", winPower.timeout) == nil,
           let reason = LoadState.apiTimeoutProblem(api: winPower.apiTimeout, total: winPower.timeout, totalName: prefix + "timeout") {
            problem(prefix + "api_timeout", reason)
        }
        if let agent = winPower.userAgent, let reason = LoadState.userAgentProblem(agent) {
            problem(prefix + "user_agent", "\(agent.debugDescription) \(reason)")
        }
        if let reason = LoadState.areaIdProblem(winPower.areaId) {
            problem(prefix + "area_id", "\(winPower.areaId.debugDescription) \(reason)")
        }
        integer("winpower.max_readings_per_device", winPower.maxReadingsPerDevice, shown: prefix + "max_readings_per_device")
        integer("winpower.max_readings_per_server", winPower.maxReadingsPerServer, shown: prefix + "max_readings_per_server")
        integer("winpower.max_devices", winPower.maxDevices, shown: prefix + "max_devices")
        integer("winpower.max_pages", winPower.maxPages, shown: prefix + "max_pages")
        integer("winpower.max_text_bytes", winPower.maxTextBytes, shown: prefix + "max_text_bytes")
    }

    /// The entries of `servers`: unique valid names, their own settings, `energy_from`.
    mutating func servers(_ servers: [ServerEntry]) {
        var names: [String: Int] = [:]
        for (index, entry) in servers.enumerated() {
            let path = "servers[\(index)]"
            if let reason = ServerDraft.nameProblem(entry.name) {
                problem(path + ".name", "\(entry.name.debugDescription) \(reason)")
            } else if let first = names[entry.name] {
                problem(path + ".name", "\(entry.name.debugDescription) is already the name of servers[\(first)]; names must be unique")
            } else {
                names[entry.name] = index
            }
            winPower(entry.winPower, prefix: path + ".", requireLogin: true)
            if let interval = entry.collectionInterval, let reason = LoadState.durationProblem("scheduler.collection_interval", interval) {
                problem(path + ".collection_interval", reason)
            }
            var labels: Set<String> = []
            for label in entry.labels {
                if let reason = ServerDraft.labelNameProblem(label.name) {
                    problem(path + ".labels." + label.name, "\(label.name.debugDescription) \(reason)")
                } else if !labels.insert(label.name).inserted {
                    problem(path + ".labels." + label.name, "is set twice; a series cannot carry a label twice")
                }
            }
        }
        var claimed: [String: Int] = [:]
        for (index, entry) in servers.enumerated() {
            guard let from = entry.energyFrom else { continue }
            let shown = "servers[\(index)].energy_from"
            if let reason = ServerDraft.nameProblem(from) {
                problem(shown, "\(from.debugDescription) \(reason)")
            } else if let first = claimed[from] {
                problem(shown, "\(from.debugDescription) is already continued by servers[\(first)]; each stored total goes to one entry")
            } else if from != entry.name, names[from] != nil {
                problem(shown, "\(from.debugDescription) is the name of another entry, whose totals are its own; "
                        + "energy_from names a server that no longer exists under that name")
            } else {
                claimed[from] = index
            }
        }
    }
}
