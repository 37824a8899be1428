/// How often the collector runs and how long its device readings stay valid.
///
/// The collector itself never sleeps: a scheduler calls ``WinPowerCollector/collect()`` every
/// ``interval``. The interval matters to the collector only through the default
/// ``stalenessWindow``, the age after which a device's last successful reading is withdrawn
/// from `/metrics` instead of being repeated.
///
/// ```swift
/// let configuration = CollectorConfiguration(interval: .seconds(5), target: "https://winpower.example:8081")
/// // configuration.stalenessWindow == .seconds(15)
/// ```
public struct CollectorConfiguration: Sendable, Equatable {
    /// The collection interval (default 5 s).
    public var interval: Duration
    /// How old the last successful reading of a device may be before its instantaneous gauges
    /// are withdrawn; also the window of ``CollectorHealth/isHealthy(sinceLastSuccess:stalenessWindow:)``.
    /// Defaults to `max(3 × interval, 15 s)`.
    public var stalenessWindow: Duration
    /// The WinPower base URL without credentials, for log fields and the health report.
    public var target: String
    /// Upper bounds (seconds) of `winpower_exporter_collection_duration_seconds`.
    public var collectionDurationBuckets: [Double]
    /// Upper bounds (seconds) of `winpower_api_response_time_seconds`.
    public var apiResponseTimeBuckets: [Double]
    /// Labels of one server of a multi-server exporter (`server` first, then the entry's
    /// static labels). When not empty, snapshots carry only `MetricsSnapshot/chunks`: the
    /// families with these labels on every series, except the process-wide ones
    /// (``WinPowerCollector/processWideFamilies``); their bodies are empty (see
    /// `ExpositionChunks/standalone(openMetrics:)` for one server's own body).
    public var seriesLabels: [SeriesLabel] = []
    /// What this collector's devices are called in a shared `WPEnergy/EnergyMeter`:
    /// `energyKeyPrefix + device_id`. Empty (the device id alone) for a single server; see
    /// `EnergyKey` for the multi-server scheme.
    public var energyKeyPrefix: String = ""
    /// What happens to numeric readings without a metric of their own (passed through, capped).
    public var readings = ReadingsPolicy()
    /// Which devices are kept, their names and static labels (every device, unchanged, by default).
    public var devices = DeviceFilter.all
    /// How long a collection waits for the save of its energy totals before it publishes:
    /// 250 ms, long enough for a healthy disk's fsync and short beside the shortest collection
    /// interval (1 s). A stuck disk holds the served counters at their last saved values.
    public var saveWait: Duration = .milliseconds(250)

    /// Creates a configuration.
    ///
    /// - Parameters:
    ///   - interval: the collection interval.
    ///   - stalenessWindow: the staleness window, or `nil` for `max(3 × interval, 15 s)`.
    ///   - target: the WinPower base URL without credentials.
    public init(interval: Duration = .seconds(5), stalenessWindow: Duration? = nil, target: String = "") {
        self.interval = interval
        self.stalenessWindow = stalenessWindow ?? Self.defaultStalenessWindow(interval: interval)
        self.target = target
        self.collectionDurationBuckets = [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30]
        self.apiResponseTimeBuckets = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10]
    }

    /// `max(3 × interval, 15 s)`: the staleness window used when none is given.
    ///
    /// - Parameter interval: the collection interval.
    /// - Returns: the default staleness window for that interval.
    public static func defaultStalenessWindow(interval: Duration) -> Duration {
        max(interval * 3, .seconds(15))
    }
}
