extension ConfigValue {
    /// The text of a string value; nil for other kinds.
    var text: String? {
        guard case .string(let value) = self else { return nil }
        return value
    }

    /// The duration of a duration value; nil for other kinds.
    var duration: Duration? {
        guard case .duration(let value) = self else { return nil }
        return value
    }
}

/// Turns validated settings into an ``ExporterConfiguration``.
extension LoadState {
    func string(_ name: String) -> String? { settings[name]?.value.text }

    private func integer(_ name: String, _ fallback: Int) -> Int {
        guard case .integer(let value)? = settings[name]?.value else { return fallback }
        return value
    }

    private func boolean(_ name: String, _ fallback: Bool) -> Bool {
        guard case .boolean(let value)? = settings[name]?.value else { return fallback }
        return value
    }

    private func duration(_ name: String, _ fallback: Duration) -> Duration { settings[name]?.value.duration ?? fallback }

    /// The `winpower.*` values `lookup` gives (by dotted `winpower.` name), defaults for the rest.
    func winPower(_ lookup: (String) -> ConfigValue?) -> ExporterConfiguration.WinPower {
        var result = ExporterConfiguration.WinPower()
        func text(_ name: String) -> String? { lookup(name)?.text }
        func duration(_ name: String, _ fallback: Duration) -> Duration { lookup(name)?.duration ?? fallback }
        result.baseURL = text("winpower.base_url")
        result.username = text("winpower.username")
        result.password = text("winpower.password").map(Secret.init)
        result.passwordFile = text("winpower.password_file")
        result.timeout = duration("winpower.timeout", result.timeout)
        result.apiTimeout = duration("winpower.api_timeout", result.apiTimeout)
        if case .boolean(let skip)? = lookup("winpower.skip_ssl_verify") { result.skipSSLVerify = skip }
        result.refreshThreshold = duration("winpower.refresh_threshold", result.refreshThreshold)
        result.caFile = text("winpower.ca_file")
        result.userAgent = text("winpower.user_agent")
        result.areaId = text("winpower.area_id") ?? result.areaId
        if case .boolean(let include)? = lookup("winpower.include_sub_area") { result.includeSubArea = include }
        if case .boolean(let passthrough)? = lookup("winpower.passthrough_readings") { result.passthroughReadings = passthrough }
        if case .integer(let count)? = lookup("winpower.max_readings_per_device") { result.maxReadingsPerDevice = count }
        if case .integer(let count)? = lookup("winpower.max_readings_per_server") { result.maxReadingsPerServer = count }
        if case .integer(let count)? = lookup("winpower.max_devices") { result.maxDevices = count }
        if case .integer(let count)? = lookup("winpower.max_pages") { result.maxPages = count }
        if case .integer(let bytes)? = lookup("winpower.max_text_bytes") { result.maxTextBytes = bytes }
        return result
    }

    func build() -> ExporterConfiguration {
        var config = ExporterConfiguration()
        let server = config.server
        config.server.port = integer("server.port", server.port)
        config.server.host = string("server.host") ?? server.host
        config.server.readTimeout = duration("server.read_timeout", server.readTimeout)
        config.server.writeTimeout = duration("server.write_timeout", server.writeTimeout)
        config.server.enablePprof = boolean("server.enable_pprof", server.enablePprof)
        config.server.metricsPath = string("server.metrics_path") ?? server.metricsPath
        config.server.webConfigFile = string("server.web_config_file")
        config.server.enableLifecycle = boolean("server.enable_lifecycle", server.enableLifecycle)

        config.winPower = winPower { settings[$0]?.value }
        config.winPower.devices = winPowerDevices?.selection ?? DeviceSelection()
        config.servers = serverEntries()

        let storage = config.storage
        config.storage.dataDirectory = string("storage.data_dir") ?? storage.dataDirectory
        config.storage.filePermissions = integer("storage.file_permissions", storage.filePermissions)
        config.storage.syncWrite = boolean("storage.sync_write", storage.syncWrite)
        config.storage.flushInterval = duration("storage.flush_interval", storage.flushInterval)

        config.scheduler.collectionInterval = duration("scheduler.collection_interval", config.scheduler.collectionInterval)
        config.scheduler.gracefulShutdownTimeout = duration("scheduler.graceful_shutdown_timeout",
                                                            config.scheduler.gracefulShutdownTimeout)
        config.energy.maxGap = duration("energy.max_gap", config.energy.maxGap)
        if case .integer(let watts)? = settings["energy.max_power_watts"]?.value { config.energy.maxPowerWatts = watts }
        config.energy.tariffs = tariffs()

        let logging = config.logging
        config.logging.level = string("logging.level").flatMap(ExporterConfiguration.Logging.Level.init) ?? logging.level
        config.logging.format = string("logging.format").flatMap(ExporterConfiguration.Logging.Format.init) ?? logging.format
        config.logging.filePath = string("logging.file_path") ?? logging.filePath
        switch string("logging.output") ?? "stdout" {
        case "stdout": config.logging.output = .stdout
        case "stderr": config.logging.output = .stderr
        case "file": config.logging.output = .file(config.logging.filePath)
        case "both": config.logging.output = .both(config.logging.filePath)
        case let path: config.logging.output = .file(path)
        }
        config.logging.maxSize = integer("logging.max_size", logging.maxSize)
        config.logging.maxAge = integer("logging.max_age", logging.maxAge)
        config.logging.maxBackups = integer("logging.max_backups", logging.maxBackups)
        config.logging.compress = boolean("logging.compress", logging.compress)
        config.logging.enableCaller = boolean("logging.enable_caller", logging.enableCaller)
        config.logging.enableStacktrace = boolean("logging.enable_stacktrace", logging.enableStacktrace)

        config.push.url = string("push.url")
        config.push.interval = duration("push.interval", config.push.interval)
        config.push.job = string("push.job") ?? config.push.job
        config.push.username = string("push.username")
        config.push.password = string("push.password").map(Secret.init)

        let nut = ExporterConfiguration.NUT()
        config.nut.listen = string("nut.listen").flatMap { $0.isEmpty ? nil : $0 }
        config.nut.usersFile = string("nut.users_file")
        config.nut.allowAnonymous = boolean("nut.allow_anonymous", nut.allowAnonymous)
        config.nut.batteryChargeLow = integer("nut.battery_charge_low", nut.batteryChargeLow)
        config.nut.batteryRuntimeLow = duration("nut.battery_runtime_low", nut.batteryRuntimeLow)
        config.nut.defaultUPS = string("nut.default_ups")
        config.nut.maxConnections = integer("nut.max_connections", nut.maxConnections)
        config.nut.ups = nutUPS
        config.snmp.listen = string("snmp.listen").flatMap { $0.isEmpty ? nil : $0 }
        config.snmp.usersFile = string("snmp.users_file")
        config.snmp.defaultUPS = string("snmp.default_ups")
        config.snmp.systemName = string("snmp.system.name")
        config.snmp.systemContact = string("snmp.system.contact") ?? ""
        config.snmp.systemLocation = string("snmp.system.location") ?? ""
        config.declaredSections = declaredSections()
        return config
    }

    /// The values of each section the schema's front ends declare, those that differ from the
    /// defaults.
    func declaredSections() -> [String: DeclaredSectionValues] {
        var result: [String: DeclaredSectionValues] = [:]
        for section in inputs.schema.sections {
            var values: [String: ConfigValue] = [:]
            for key in section.keys {
                if let value = settings[key.name]?.value, value != key.defaultValue { values[key.name] = value }
            }
            let lists = lists(of: section)
            if !values.isEmpty || !lists.isEmpty {
                result[section.name] = DeclaredSectionValues(section: section, values: values, lists: lists)
            }
        }
        return result
    }

    /// `energy.tariffs.*` as set (a price or hours that do not parse are left out: validation
    /// names them).
    func tariffs() -> ExporterConfiguration.Energy.Tariffs {
        typealias Tariffs = ExporterConfiguration.Energy.Tariffs
        var tariffs = Tariffs()
        tariffs.currency = string("energy.tariffs.currency")
        tariffs.timeZone = string("energy.tariffs.time_zone") ?? tariffs.timeZone
        tariffs.flatPrice = string("energy.tariffs.flat_price").flatMap(Tariffs.price)
        tariffs.peakPrice = string("energy.tariffs.peak_price").flatMap(Tariffs.price)
        tariffs.valleyPrice = string("energy.tariffs.valley_price").flatMap(Tariffs.price)
        tariffs.peakHours = string("energy.tariffs.peak_hours").flatMap(Tariffs.hours) ?? []
        tariffs.valleyHours = string("energy.tariffs.valley_hours").flatMap(Tariffs.hours) ?? []
        return tariffs
    }
}
