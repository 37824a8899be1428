import WPTime
import FoundationEssentials
package import WPClient
package import WPCollector
package import WPConfig
package import WPEnergy
package import WPLogging
import WPRuntime
package import WPScheduler
package import WPServer
package import WPStorage

/// Maps the validated ``ExporterConfiguration`` onto each library's own `Configuration`.
///
/// Pure functions of the configuration, tested without starting anything; the libraries keep
/// their own defaults so they embed without WPConfig.
package enum ExporterSettings {
    /// `logging.*` → ``LoggingConfiguration``.
    /// The log format to use: the configured one, except that a format left at its default
    /// (`json`) becomes `console` when the log goes to a terminal (`stdout`, `stderr` or `both`
    /// on a descriptor `isTerminal` says is one). JSON stays the default for pipes, files and
    /// log collectors.
    package static func logFormat(_ logging: ExporterConfiguration.Logging, formatIsDefault: Bool,
                                  isTerminal: (Int32) -> Bool) -> ExporterConfiguration.Logging.Format {
        guard formatIsDefault else { return logging.format }
        let descriptor: Int32? = switch logging.output {
        case .stdout, .both: 1
        case .stderr: 2
        case .file: nil
        }
        return descriptor.map(isTerminal) == true ? .console : logging.format
    }

    package static func logging(_ logging: ExporterConfiguration.Logging) -> LoggingConfiguration {
        var result = LoggingConfiguration()
        result.level = switch logging.level {
        case .debug: .debug
        case .info: .info
        case .warn: .warn
        case .error: .error
        }
        result.format = logging.format == .json ? .json : .console
        switch logging.output {
        case .stdout: result.output = .stdout
        case .stderr: result.output = .stderr
        case .file(let path): result.output = .file; result.filePath = path
        case .both(let path): result.output = .both; result.filePath = path
        }
        if case .stdout = logging.output { result.filePath = logging.filePath }
        if case .stderr = logging.output { result.filePath = logging.filePath }
        result.maxSizeMB = logging.maxSize
        result.maxAgeDays = logging.maxAge
        result.maxBackups = logging.maxBackups
        result.compress = logging.compress
        result.enableCaller = logging.enableCaller
        result.enableStacktrace = logging.enableStacktrace
        return result
    }

    /// `winpower.*` → the client's configuration.
    ///
    /// - Throws: ``UnusableBaseURL`` when the base URL is missing or unusable (validation
    ///   catches this first for `server`).
    package static func client(_ winPower: ExporterConfiguration.WinPower) throws(UnusableBaseURL)
        -> WinPowerHTTPClient.Configuration {
        guard let text = winPower.baseURL, let url = URL(string: text), url.host != nil else { throw UnusableBaseURL() }
        var result = WinPowerHTTPClient.Configuration(baseURL: url, username: winPower.username ?? "",
                                                      password: winPower.password?.reveal() ?? "")
        result.timeout = winPower.timeout
        result.apiTimeout = winPower.apiTimeout
        result.skipSSLVerify = winPower.skipSSLVerify
        result.caFile = winPower.caFile
        result.refreshThreshold = winPower.refreshThreshold
        result.userAgent = winPower.userAgent ?? "wpexporter/\(BuildInfo.exporterVersion)"
        result.areaId = winPower.areaId
        result.includeSubArea = winPower.includeSubArea
        result.maxDevices = winPower.maxDevices
        result.maxPages = winPower.maxPages
        result.maxTextBytes = winPower.maxTextBytes
        return result
    }

    /// `storage.*` → ``StorageConfiguration``.
    package static func storage(_ storage: ExporterConfiguration.Storage) -> StorageConfiguration {
        StorageConfiguration(dataDirectory: storage.dataDirectory, filePermissions: UInt16(clamping: storage.filePermissions),
                             syncWrite: storage.syncWrite, flushInterval: storage.flushInterval)
    }

    /// `energy.*` → ``EnergyConfiguration``.
    package static func energy(_ energy: ExporterConfiguration.Energy) -> EnergyConfiguration {
        EnergyConfiguration(maxGap: energy.maxGap, maxPowerWatts: energy.maxPowerWatts.map(Double.init))
    }

    /// `energy.tariffs.*` → the cost meter's ``TariffSchedule``; `nil` when costs are off (or the
    /// tariffs do not validate, which loading refuses first).
    package static func tariffs(_ tariffs: ExporterConfiguration.Energy.Tariffs) -> TariffSchedule? {
        guard let currency = tariffs.currency, let flat = tariffs.flatPrice, tariffs.problems().isEmpty,
              let zone = TimeZoneRules.named(tariffs.timeZone) else { return nil }
        var windows: [TariffSchedule.Window] = []
        for (period, price, hours) in [("peak", tariffs.peakPrice, tariffs.peakHours), ("valley", tariffs.valleyPrice, tariffs.valleyHours)] {
            guard let price else { continue }
            windows += hours.map { TariffSchedule.Window(period: period, price: price, start: $0.start, end: $0.end) }
        }
        return TariffSchedule(currency: currency, timeZone: zone, flatPrice: flat, windows: windows)
    }

    /// `scheduler.*` → the scheduler's configuration.
    package static func scheduler(_ scheduler: ExporterConfiguration.Scheduler) -> WPScheduler.TickScheduler<ContinuousClock>.Configuration {
        .init(interval: scheduler.collectionInterval, gracefulShutdownTimeout: scheduler.gracefulShutdownTimeout)
    }

    /// The collector's configuration: interval, default staleness window, credential-free target.
    package static func collector(_ configuration: ExporterConfiguration) -> CollectorConfiguration {
        var result = CollectorConfiguration(interval: configuration.scheduler.collectionInterval,
                                            target: target(configuration.winPower.baseURL))
        result.readings = readings(configuration.winPower)
        result.devices = devices(configuration.winPower.devices)
        return result
    }

    /// `winpower.devices` → the collector's ``DeviceFilter``.
    package static func devices(_ selection: DeviceSelection) -> DeviceFilter {
        var filter = DeviceFilter(include: Set(selection.include), exclude: Set(selection.exclude),
                                  includeAliases: selection.includeAliases.map(AliasPattern.init),
                                  excludeAliases: selection.excludeAliases.map(AliasPattern.init),
                                  names: selection.overrides.compactMapValues(\.name),
                                  labels: selection.overrides.mapValues { override in
                                      Dictionary(override.labels.map { ($0.name, $0.value) }, uniquingKeysWith: { first, _ in first })
                                  }.filter { !$0.value.isEmpty })
        filter.battery = selection.battery.flatMap { battery(installed: $0.installed, life: $0.life) }
        filter.batteries = selection.overrides.compactMapValues { override in
            // What a device's own battery leaves unset is the selection's.
            override.battery.flatMap { own in
                battery(installed: own.installed ?? selection.battery?.installed, life: own.life ?? selection.battery?.life)
            }
        }
        return filter
    }

    /// A configured battery (checked at load); `nil` when neither day nor life is set.
    private static func battery(installed: String?, life: String?) -> BatteryLife? {
        guard installed != nil || life != nil else { return nil }
        return BatteryLife(installed: installed, life: life ?? BatteryLife.defaultLife)
    }

    /// `winpower.passthrough_readings` and the caps → the collector's ``ReadingsPolicy``.
    package static func readings(_ winPower: ExporterConfiguration.WinPower) -> ReadingsPolicy {
        ReadingsPolicy(passthrough: winPower.passthroughReadings, maxPerDevice: winPower.maxReadingsPerDevice,
                       maxPerServer: winPower.maxReadingsPerServer)
    }

    /// `server.*` → the HTTP server's configuration. `server.read_timeout` bounds the whole
    /// request (head and body together), writes get `server.write_timeout`; shutdown waits for
    /// scrapes up to `scheduler.graceful_shutdown_timeout`.
    package static func server(_ configuration: ExporterConfiguration) -> WPHTTPServer.Configuration {
        var result = WPHTTPServer.Configuration(host: configuration.server.host, port: configuration.server.port)
        result.headTimeout = configuration.server.readTimeout
        result.bodyTimeout = configuration.server.readTimeout
        result.requestTimeout = configuration.server.readTimeout
        result.writeTimeout = configuration.server.writeTimeout
        result.shutdownGracePeriod = configuration.scheduler.gracefulShutdownTimeout
        return result
    }

    /// The WinPower URL without user information, query or fragment, for pages and logs.
    package static func target(_ baseURL: String?) -> String {
        guard let baseURL, let url = URL(string: baseURL) else { return "" }
        return WinPowerHTTPClient.Configuration.redacted(url)
    }
}

/// `winpower.base_url` (or a `servers` entry's `base_url`) is not set to a usable URL: the
/// WinPower client cannot be made.
package struct UnusableBaseURL: Error, Sendable, Equatable, CustomStringConvertible {
    package var description: String { "winpower.base_url is not set to a usable URL" }
}
